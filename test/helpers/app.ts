/**
 * An MCP client over a fresh app (createApp) with chosen bindings — for swapping Cloudflare's
 * queue for a stand-in. Everything else (D1, auth, tools) is the real thing.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../../workers/app";

export interface AppClient {
  client: Client;
  /** Waits for everything the requests left running in the background (waitUntil). */
  settle(): Promise<void>;
}

export async function connectWithBindings(bindings: Partial<Env>, token: string): Promise<AppClient> {
  const app = createApp();
  const ctx = createExecutionContext();
  const appEnv: Env = { ...env, ...bindings };
  const client = new Client(
    { name: "mcp-edge-tests", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp/tasks"), {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      request.headers.set("host", new URL(request.url).host);
      return app.fetch(request, appEnv, ctx);
    },
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, settle: () => waitOnExecutionContext(ctx) };
}

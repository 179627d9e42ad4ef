/**
 * An MCP client over a fresh app (createApp) with chosen bindings — for swapping Cloudflare's
 * queue for a stand-in. Everything else (D1, auth, tools) is the real thing.
 */
import type { Client } from "@modelcontextprotocol/client";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../../workers/app";
import { connectTo } from "./mcp";

export interface AppClient {
  client: Client;
  /** Waits for everything the requests left running in the background (waitUntil). */
  settle(): Promise<void>;
}

export async function connectWithBindings(bindings: Partial<Env>, token: string): Promise<AppClient> {
  const app = createApp();
  const ctx = createExecutionContext();
  const appEnv: Env = { ...env, ...bindings };
  const client = await connectTo("/mcp/tasks", token, {
    era: "2026-07-28",
    fetch: async (input, init) => {
      const request = new Request(input, init);
      request.headers.set("host", new URL(request.url).host);
      return app.fetch(request, appEnv, ctx);
    },
  });
  return { client, settle: () => waitOnExecutionContext(ctx) };
}

/**
 * AgentMcp: the main Worker's MCP endpoints (/mcp and /mcp/<server>) for the chat agent's Worker,
 * as an RPC entrypoint. Only a Worker with a service binding to it can call it — never the
 * internet: a named entrypoint has no URL, and only the account's own Workers can be bound to it
 * (the agent's MCP_EDGE binding). The agent passes the principal the main Worker authenticated for
 * /api/chat with each request; the request carries no token and any Authorization header it has
 * is dropped, so the principal is the only identity there is.
 *
 * Built on first use like the rest of the entry: a new isolate evaluates only this class.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { createAgentMcpApp } from "./app";
import type { PrincipalWire } from "./auth/principal-wire";
import { onFirstUse } from "./lib/first-use";

const agentMcpApp = onFirstUse(async () => {
  const [{ fromWire }, { handOver }] = await Promise.all([import("./auth/principal-wire"), import("./http/principal-handover")]);
  return { app: createAgentMcpApp(), fromWire, handOver };
});

export class AgentMcp extends WorkerEntrypoint<Env> {
  /**
   * Serves one MCP request for `principal` (a PrincipalWire) as /mcp would for their token. A
   * malformed principal is a bug in the caller: it throws, naming what is wrong.
   */
  async serve(principal: PrincipalWire, request: Request): Promise<Response> {
    const { app, fromWire, handOver } = await agentMcpApp();
    const caller = fromWire(principal);
    const forwarded = new Request(request);
    forwarded.headers.delete("authorization");
    // A network request would carry the Host of its URL; the MCP handler's Host check expects it.
    forwarded.headers.set("host", new URL(forwarded.url).host);
    return app.fetch(forwarded, handOver(this.env, caller), this.ctx);
  }
}

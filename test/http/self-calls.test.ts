/**
 * The Worker's own SELF requests (a gateway source on its own origin) enter at the SelfCalls entry
 * point, which serves the same app as the default export with three differences on /mcp*: no CORS
 * headers (the gateway reads the answer, never a browser), the gateway's mark of a counted tool
 * call is believed (test/limits/self-hop.test.ts), and the gateway /mcp itself is refused — a
 * gateway source cannot be this gateway (test/gateway/own-gateway-source.test.ts). Everything else
 * answers as from outside.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { GATEWAY_SOURCE_IS_THIS_GATEWAY } from "../../workers/http/self-call";
import { selfRoutedFetch } from "../../workers/mcp-client/self-routed-fetch";
import { workerFetch } from "../helpers/mcp";
import { legacyPost, rpcResponse } from "../helpers/rpc";
import { createUser, type TestUser } from "../helpers/users";

let user: TestUser;
beforeAll(async () => {
  user = await createUser();
});

const listTools = () => legacyPost(user.token, "2025-06-18", { id: 1, method: "tools/list" });
const corsHeaders = (res: Response) => [...res.headers.keys()].filter((name) => name.startsWith("access-control-"));

describe("a SELF request", () => {
  it.each(["/mcp/tasks", "/mcp/thinking"])("to %s is answered as from outside, without the CORS headers", async (path) => {
    const [inside, outside] = [await selfRoutedFetch(env)(`http://localhost${path}`, listTools()), await workerFetch(`http://localhost${path}`, listTools())];
    expect(inside.status).toBe(200);
    expect(corsHeaders(inside)).toEqual([]);
    expect(corsHeaders(outside)).not.toEqual([]);
    expect((await rpcResponse(inside)).result).toEqual((await rpcResponse(outside)).result);
  });

  it("is authenticated as from outside: without a token it is refused", async () => {
    const res = await selfRoutedFetch(env)("http://localhost/mcp/tasks", { ...listTools(), headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("reaches the routes beside /mcp (the OAuth discovery documents) as from outside", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp/tasks", "/.well-known/oauth-authorization-server"]) {
      const [inside, outside] = [await selfRoutedFetch(env)(`http://localhost${path}`), await workerFetch(`http://localhost${path}`)];
      expect(inside.status, path).toBe(outside.status);
      expect(await inside.json(), path).toEqual(await outside.json());
    }
  });
});

describe("a SELF request for the gateway /mcp itself", () => {
  const refusal = (id: number | string | null) => ({
    jsonrpc: "2.0",
    id,
    error: { code: GATEWAY_SOURCE_IS_THIS_GATEWAY, message: expect.stringMatching(/^a gateway source cannot be this gateway: /) },
  });

  it("answers each request its own JSON-RPC error, so the gateway's client settles it at once; outside, /mcp serves as always", async () => {
    const inside = await selfRoutedFetch(env)("http://localhost/mcp", listTools());
    expect(inside.status).toBe(200);
    expect(await inside.json()).toEqual(refusal(1));
    const outside = await workerFetch("http://localhost/mcp", listTools());
    expect((await rpcResponse(outside)).result).toMatchObject({ tools: expect.arrayContaining([expect.objectContaining({ name: "add_task" })]) });
  });

  it("answers a batch one error per request, and refuses before authentication (nothing is spent, no challenge)", async () => {
    const batch = [
      { jsonrpc: "2.0", id: "a", method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "add_task", arguments: { title: "never made" } } },
    ];
    const res = await selfRoutedFetch(env)("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(batch),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect(await res.json()).toEqual([refusal("a"), refusal(7)]);
  });

  it("answers HTTP 403 with the error when there is no request to answer (a stream, a notification)", async () => {
    const stream = await selfRoutedFetch(env)("http://localhost/mcp", { headers: { authorization: `Bearer ${user.token}`, accept: "text/event-stream" } });
    expect(stream.status).toBe(403);
    expect(await stream.json()).toEqual(refusal(null));
    const notification = await selfRoutedFetch(env)("http://localhost/mcp", legacyPost(user.token, "2025-06-18", { method: "notifications/initialized" }));
    expect(notification.status).toBe(403);
    expect(await notification.json()).toEqual(refusal(null));
  });
});

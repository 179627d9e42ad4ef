/**
 * The Worker's own SELF requests (a gateway source on its own origin) enter at the SelfCalls entry
 * point, which serves the same app as the default export with two differences on /mcp*: no CORS
 * headers (the gateway reads the answer, never a browser), and the gateway's mark of a counted tool
 * call is believed (test/limits/self-hop.test.ts). Everything else answers as from outside.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
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
  it.each(["/mcp/tasks", "/mcp"])("to %s is answered as from outside, without the CORS headers", async (path) => {
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

import { beforeEach, describe, expect, it } from "vitest";
import { clearTokenCache } from "../../helpers/isolate";
import { connect, workerFetch } from "../../helpers/mcp";
import { revokeTokens } from "../../helpers/db";
import { createUser } from "../../helpers/users";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "auth-test", version: "1.0.0" } },
});

/** One protected request on each surface, with whatever Authorization header the case needs. */
const SURFACES = {
  "/api/tasks": (authorization?: string) =>
    workerFetch("http://localhost/api/tasks", { headers: authorization === undefined ? {} : { authorization } }),
  "/mcp/tasks": (authorization?: string) =>
    workerFetch("http://localhost/mcp/tasks", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: INITIALIZE,
    }),
};

/** The 401 challenge of each surface: its resource metadata and (for MCP servers) every scope its tools use. */
const CHALLENGES: Record<string, string> = {
  "/api/tasks": 'resource_metadata="http://localhost/.well-known/oauth-protected-resource/api"',
  "/mcp/tasks": 'resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp/tasks", scope="tasks:read tasks:write"',
};

async function expectUnauthorized(res: Response, message: RegExp): Promise<void> {
  expect(res.status).toBe(401);
  // RFC 6750: no error code when no credentials were sent; invalid_token for any token that failed.
  const tokenSent = !message.source.startsWith("^Missing");
  expect(res.headers.get("www-authenticate")).toBe(
    `Bearer realm="OAuth", ${tokenSent ? 'error="invalid_token", ' : ""}${CHALLENGES[currentSurface]}`,
  );
  const body = await res.json<{ error: { code: string; message: string } }>();
  expect(body.error.code).toBe("unauthorized");
  expect(body.error.message).toMatch(message);
}

/** The surface under test, for the challenge it must answer with. */
let currentSurface = "";

describe.each(Object.entries(SURFACES))("authentication on %s", (surface, request) => {
  beforeEach(() => {
    currentSurface = surface;
  });

  it("rejects a request without an Authorization header", async () => {
    await expectUnauthorized(await request(), /^Missing Authorization header: send `Authorization: Bearer <token>`/);
  });

  it.each(["Token abc", "Bearer", "Bearer ", "Bearer two words", "Basic dXNlcjpwYXNz"])(
    "rejects the malformed header %j",
    async (header) => {
      await expectUnauthorized(await request(header), /^Malformed Authorization header: expected `Bearer <token>`$/);
    },
  );

  it("rejects an unknown token", async () => {
    await expectUnauthorized(await request("Bearer mcpe_not-a-real-token"), /^Invalid or revoked API token$/);
  });

  it("rejects a revoked token once the isolate's token cache no longer holds it", async () => {
    const user = await createUser();
    expect((await request(`Bearer ${user.token}`)).status).toBe(200);

    await revokeTokens(user.id);
    clearTokenCache();

    await expectUnauthorized(await request(`Bearer ${user.token}`), /^Invalid or revoked API token$/);
  });

  it("accepts a valid token, whatever the scheme's case", async () => {
    const user = await createUser();
    expect((await request(`bearer ${user.token}`)).status).toBe(200);
  });
});

describe("MCP clients with a bad token", () => {
  it("cannot connect", async () => {
    await expect(connect("tasks", "mcpe_not-a-real-token")).rejects.toThrow(/401|nauthorized/);
  });
});

describe("/health", () => {
  it("needs no token and reports D1 and whether the outbox is delivering", async () => {
    const res = await workerFetch("http://localhost/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: "healthy",
      d1: { connected: true },
      outbox: { status: "ok" },
    });
  });
});

/**
 * The token endpoint and what the resource side does with its tokens: PKCE, code reuse, refresh
 * rotation and reuse detection, revocation, audience, expiry and the verification cache's bound.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clearTokenCache } from "../helpers/isolate";
import { createAuthorizationServer } from "../../workers/auth/authorization-server";
import { workerFetch } from "../helpers/mcp";
import {
  authorizeInBrowser,
  authorizeUrl,
  Browser,
  LOOPBACK_REDIRECT,
  obtainTokens,
  ORIGIN,
  pkce,
  registerClient,
  tokenRequest,
} from "../helpers/oauth";
import { createUser } from "../helpers/users";
import { legacyPost } from "../helpers/rpc";

function listTasks(token: string, path = "/mcp/tasks"): Promise<Response> {
  return workerFetch(
    `${ORIGIN}${path}`,
    legacyPost(token, "2025-11-25", { id: 1, method: "tools/call", params: { name: "list_tasks", arguments: {} } }),
  );
}

/** A confidential client (DCR with client_secret_basic). */
async function registerConfidentialClient(): Promise<{ clientId: string; clientSecret: string }> {
  const res = await workerFetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": `192.0.2.${crypto.randomUUID()}` },
    body: JSON.stringify({ redirect_uris: [LOOPBACK_REDIRECT], token_endpoint_auth_method: "client_secret_basic" }),
  });
  expect(res.status).toBe(201);
  const body = await res.json<{ client_id: string; client_secret: string }>();
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

function refresh(refreshToken: string, clientId: string): Promise<Response> {
  return tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
}

async function oauthError(res: Response): Promise<string> {
  return (await res.json<{ error: string }>()).error;
}

describe("PKCE (S256 only, every client)", () => {
  it("an authorization request without a code challenge is sent back with invalid_request", async () => {
    const user = await createUser();
    const clientId = await registerClient();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge: null, method: null }), user);
    expect(callback.origin + callback.pathname).toBe(LOOPBACK_REDIRECT);
    expect(callback.searchParams.get("error")).toBe("invalid_request");
    expect(callback.searchParams.get("state")).toBe("state-1");
    expect(callback.searchParams.get("iss")).toBe(ORIGIN);
    expect(callback.searchParams.has("code")).toBe(false);
  });

  it("a confidential client without a code challenge is sent back with invalid_request too (PKCE for every client)", async () => {
    const user = await createUser();
    const { clientId } = await registerConfidentialClient();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge: null, method: null }), user);
    expect(callback.origin + callback.pathname).toBe(LOOPBACK_REDIRECT);
    expect(callback.searchParams.get("error")).toBe("invalid_request");
    expect(callback.searchParams.get("error_description")).toContain("PKCE is required of every client");
    expect(callback.searchParams.get("state")).toBe("state-1");
    expect(callback.searchParams.get("iss")).toBe(ORIGIN);
    expect(callback.searchParams.has("code")).toBe(false);
  });

  it("a confidential client with S256 PKCE signs in and redeems its code with its secret and verifier", async () => {
    const user = await createUser();
    const { clientId, clientSecret } = await registerConfidentialClient();
    const { verifier, challenge } = await pkce();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge }), user);
    const res = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}` },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: callback.searchParams.get("code")!,
        redirect_uri: LOOPBACK_REDIRECT,
        code_verifier: verifier,
      }).toString(),
    });
    expect(res.status).toBe(200);
  });

  it("the plain method is refused", async () => {
    const user = await createUser();
    const clientId = await registerClient();
    const { callback } = await authorizeInBrowser(
      new Browser(),
      authorizeUrl({ clientId, challenge: "a".repeat(43), method: "plain" }),
      user,
    );
    expect(callback.searchParams.get("error")).toBe("invalid_request");
    expect(callback.searchParams.get("error_description")).toMatch(/plain/i);
  });

  it("a wrong verifier gets invalid_grant and no token", async () => {
    const user = await createUser();
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge }), user);
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code: callback.searchParams.get("code")!,
      client_id: clientId,
      redirect_uri: LOOPBACK_REDIRECT,
      code_verifier: (await pkce()).verifier,
    });
    expect(res.status).toBe(400);
    expect(await oauthError(res)).toBe("invalid_grant");
  });

  it("a missing verifier gets invalid_request or invalid_grant, never a token", async () => {
    const user = await createUser();
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge }), user);
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code: callback.searchParams.get("code")!,
      client_id: clientId,
      redirect_uri: LOOPBACK_REDIRECT,
    });
    expect(res.status).toBe(400);
    expect(["invalid_request", "invalid_grant"]).toContain(await oauthError(res));
  });
});

describe("authorization codes", () => {
  it("work once: a reused code gets invalid_grant", async () => {
    const user = await createUser();
    const clientId = await registerClient();
    const { verifier, challenge } = await pkce();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge }), user);
    const fields = {
      grant_type: "authorization_code",
      code: callback.searchParams.get("code")!,
      client_id: clientId,
      redirect_uri: LOOPBACK_REDIRECT,
      code_verifier: verifier,
    };
    expect((await tokenRequest(fields)).status).toBe(200);
    const again = await tokenRequest(fields);
    expect(again.status).toBe(400);
    expect(await oauthError(again)).toBe("invalid_grant");
  });
});

describe("refresh tokens", () => {
  it("rotate: each refresh returns a new refresh token and a working access token", async () => {
    const user = await createUser();
    const { tokens, clientId } = await obtainTokens(user);
    const res = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(res.status).toBe(200);
    const rotated = await res.json<{ access_token: string; refresh_token: string }>();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await listTasks(rotated.access_token)).status).toBe(200);
  });

  it("reuse of a rotated refresh token revokes the whole grant", async () => {
    const user = await createUser();
    const { tokens, clientId } = await obtainTokens(user);
    const first = await (
      await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId })
    ).json<{ access_token: string; refresh_token: string }>();
    const second = await (
      await tokenRequest({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: clientId })
    ).json<{ access_token: string; refresh_token: string }>();
    expect(second.refresh_token).toBeTruthy();

    // The original token was rotated twice: presenting it again is a replay.
    const replay = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(replay.status).toBe(400);
    expect(await oauthError(replay)).toBe("invalid_grant");

    // The grant is gone: the newest refresh token and access token no longer work.
    const newest = await tokenRequest({ grant_type: "refresh_token", refresh_token: second.refresh_token, client_id: clientId });
    expect(await oauthError(newest)).toBe("invalid_grant");
    clearTokenCache();
    expect((await listTasks(second.access_token)).status).toBe(401);
  });

  it("two refreshes of one token (a race, or a retry after a lost response) keep the grant: the superseded one is refused", async () => {
    const user = await createUser();
    const { tokens, clientId } = await obtainTokens(user);
    const first = await (await refresh(tokens.refresh_token, clientId)).json<{ refresh_token: string }>();
    const second = await refresh(tokens.refresh_token, clientId);
    expect(second.status, "the token refreshed first is still the grant's previous one").toBe(200);
    const newest = await second.json<{ access_token: string; refresh_token: string }>();

    // The first answer's token was replaced by the second refresh: refused, and nothing more.
    const superseded = await refresh(first.refresh_token, clientId);
    expect(await oauthError(superseded)).toBe("invalid_grant");
    expect((await listTasks(newest.access_token)).status).toBe(200);
    expect((await refresh(newest.refresh_token, clientId)).status).toBe(200);
  });

  it("a refresh presented by another client is refused without revoking the grant, whatever token it presents", async () => {
    const user = await createUser();
    const { tokens, clientId } = await obtainTokens(user);
    const otherClient = await registerClient();
    // The current token, from the wrong client.
    expect(await oauthError(await refresh(tokens.refresh_token, otherClient))).toBe("invalid_grant");
    const first = await (await refresh(tokens.refresh_token, clientId)).json<{ refresh_token: string }>();
    const second = await refresh(first.refresh_token, clientId);
    expect(second.status).toBe(200);
    const current = await second.json<{ refresh_token: string }>();
    // A token rotated away twice (a replay from the right client), from the wrong client.
    expect(await oauthError(await refresh(tokens.refresh_token, otherClient))).toBe("invalid_grant");
    expect((await refresh(current.refresh_token, clientId)).status).toBe(200);
  });

  it("a forged refresh token for a real grant is refused without revoking the grant", async () => {
    const user = await createUser();
    const { tokens, clientId } = await obtainTokens(user);
    const [userId, grantId] = tokens.refresh_token.split(":");
    const forged = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: `${userId}:${grantId}:forgedsecret`,
      client_id: clientId,
    });
    expect(await oauthError(forged)).toBe("invalid_grant");
    expect((await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId })).status).toBe(
      200,
    );
  });
});

describe("revocation (RFC 7009)", () => {
  it("a revoked access token stops working once the verification cache lets go of it", async () => {
    const user = await createUser();
    const { tokens, clientId } = await obtainTokens(user);
    expect((await listTasks(tokens.access_token)).status).toBe(200);
    const res = await tokenRequest({ token: tokens.access_token, client_id: clientId });
    expect(res.status).toBe(200);
    clearTokenCache();
    const after = await listTasks(tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("revoking the refresh token ends the grant", async () => {
    const user = await createUser();
    const { tokens, clientId } = await obtainTokens(user);
    expect((await tokenRequest({ token: tokens.refresh_token, token_type_hint: "refresh_token", client_id: clientId })).status).toBe(200);
    const res = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(await oauthError(res)).toBe("invalid_grant");
  });
});

describe("audience", () => {
  it("a /mcp/tasks token is refused at /mcp/rag, /mcp and /api", async () => {
    const user = await createUser();
    const { tokens } = await obtainTokens(user, { scope: "tasks:read", resource: `${ORIGIN}/mcp/tasks` });
    expect(tokens.resource).toBe(`${ORIGIN}/mcp/tasks`);
    expect((await listTasks(tokens.access_token)).status).toBe(200);
    for (const path of ["/mcp/rag", "/mcp"]) {
      const res = await listTasks(tokens.access_token, path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    const rest = await workerFetch(`${ORIGIN}/api/tasks`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(rest.status).toBe(401);
    expect((await rest.json<{ error: { message: string } }>()).error.message).toMatch(/issued for http:\/\/localhost\/mcp\/tasks/);
  });

  it("an /api token is refused on every MCP path; a /mcp token is accepted at /mcp/tasks", async () => {
    const user = await createUser();
    const api = (await obtainTokens(user, { scope: "tasks:read", resource: `${ORIGIN}/api` })).tokens;
    expect((await workerFetch(`${ORIGIN}/api/tasks`, { headers: { authorization: `Bearer ${api.access_token}` } })).status).toBe(200);
    for (const path of ["/mcp/tasks", "/mcp/rag", "/mcp/thinking", "/mcp"])
      expect((await listTasks(api.access_token, path)).status, path).toBe(401);
    const gateway = (await obtainTokens(user, { scope: "gateway:read tasks:read", resource: `${ORIGIN}/mcp` })).tokens;
    expect((await listTasks(gateway.access_token, "/mcp/tasks")).status).toBe(200);
    expect((await listTasks(gateway.access_token, "/mcp")).status).toBe(200);
  });

  it("a root token is accepted everywhere", async () => {
    const user = await createUser();
    const { tokens } = await obtainTokens(user, { scope: "tasks:read gateway:read", resource: ORIGIN });
    for (const path of ["/mcp/tasks", "/mcp"]) expect((await listTasks(tokens.access_token, path)).status, path).toBe(200);
    expect((await workerFetch(`${ORIGIN}/api/tasks`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
  });

  it("API tokens are not bound to a resource", async () => {
    const user = await createUser();
    for (const path of ["/mcp/tasks", "/mcp"]) expect((await listTasks(user.token, path)).status, path).toBe(200);
  });
});

describe("resource inference for clients that omit `resource`", () => {
  it.each([
    ["tasks:read", "/mcp/tasks"],
    ["rag:read rag:write", "/mcp/rag"],
    ["thinking", "/mcp/thinking"],
    ["gateway:read", "/mcp"],
    ["tasks:read rag:read", "/mcp"],
    ["tasks:read chat", ""],
    ["chat", "/api"],
  ])("scope %j binds the token to %j", async (scope, path) => {
    const user = await createUser();
    const { tokens } = await obtainTokens(user, { scope, resource: null });
    expect(tokens.resource).toBe(`${ORIGIN}${path}`);
  });
});

describe("expiry", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("an expired access token gets 401, and the cache never outlives the token's own expiry", async () => {
    const user = await createUser();
    const clientId = await registerClient();
    const { verifier, challenge } = await pkce();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge }), user);
    // A short-lived authorization server over the same KV issues the token: 60 s, less than the
    // 30 s cache would keep it if the cache ignored the token's expiry (issued at t, verified at t+50).
    const shortLived = createAuthorizationServer(ORIGIN, { accessTokenTTL: 60 });
    const request = new Request(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: callback.searchParams.get("code")!,
        client_id: clientId,
        redirect_uri: LOOPBACK_REDIRECT,
        code_verifier: verifier,
      }).toString(),
    });
    const issuedAt = Date.now();
    const response = await shortLived.fetch(request, env, createExecutionContext());
    expect(response.status).toBe(200);
    const { access_token: token, expires_in: expiresIn } = await response.json<{ access_token: string; expires_in: number }>();
    expect(expiresIn).toBe(60);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(issuedAt + 50_000);
    clearTokenCache();
    expect((await listTasks(token)).status).toBe(200); // verified and cached now
    vi.setSystemTime(issuedAt + 61_000);
    const expired = await listTasks(token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

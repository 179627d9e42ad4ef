/**
 * Calls of an OAuth-protected source's tools through /mcp: the owner's own upstream token on every
 * call, refreshed when it expires, `authorization_required` (with the connect link and the scopes)
 * when there is no usable token or the upstream wants more scopes, and tokens that never cross
 * between users — against the upstream Worker's /mcp/tasks and its authorization server (this same
 * Worker at another origin: test/upstreams/upstream-worker.ts).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { callThroughGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { Browser, ORIGIN } from "../../helpers/oauth";
import { api } from "../../helpers/rest";
import {
  authorizationOf,
  connectedTasksSource,
  connectSource,
  expireAccessToken,
  followInBrowser,
  publishGatewayClientDocument,
  registerOAuthTasksSource,
  replaceStoredTokens,
  storedTokens,
} from "../../helpers/upstream-oauth";
import { createUser, type TestUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

const CLIENT_ID = "https://client-metadata.test/mcp-edge/gateway-client.json";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

interface Authorization {
  state: string;
  url: string;
  scope: string | null;
}

function authorizationIn(result: { _meta?: Record<string, unknown> }): Authorization {
  const meta = result._meta ?? {};
  expect(meta["error_type"]).toBe("authorization_required");
  return meta["authorization"] as Authorization;
}

/** The tasks the upstream token of `owner`'s source shows, through the gateway. */
async function titlesThroughSource(owner: TestUser, slug: string): Promise<string[]> {
  const result = await callThroughGateway(owner, `${slug}__list_tasks`);
  expect(result.isError, textOf(result)).toBeFalsy();
  const structured = result.structuredContent as { tasks: { title: string }[] };
  return structured.tasks.map((task) => task.title);
}

async function upstreamAudit(userId: number, n: number): Promise<{ action: string; scope: string | null }[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { results } = await env.DB.prepare(
      "SELECT payload FROM audit_log WHERE user_id = ? AND type = 'UPSTREAM_OAUTH' ORDER BY occurred_at",
    )
      .bind(userId)
      .all<{ payload: string }>();
    if (results.length >= n)
      return results.map((row) => (JSON.parse(row.payload) as { upstream_oauth: { action: string; scope: string | null } }).upstream_oauth);
    if (Date.now() > deadline) throw new Error(`expected ${n} UPSTREAM_OAUTH rows, found ${results.length}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function revokeAtUpstream(token: string, hint: "access_token" | "refresh_token"): Promise<void> {
  const res = await fetch(`${UPSTREAM_ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, token_type_hint: hint, client_id: CLIENT_ID }).toString(),
  });
  expect(res.status).toBe(200);
}

describe("calls of an OAuth-protected source", () => {
  it("without a connection answer authorization_required with the connect link", async () => {
    const { owner, source } = await connectedTasksSource();
    await api(owner, "DELETE", `/api/sources/${source.id}/authorization`);

    const result = await callThroughGateway(owner, `${source.slug}__list_tasks`);
    expect(result.isError).toBe(true);
    const authorization = authorizationIn(result);
    expect(authorization.state).toBe("needs_authorization");
    expect(authorization.url).toBe(`${ORIGIN}/oauth/upstream/connect?source_id=${source.id}`);
    expect(textOf(result)).toContain(authorization.url);
  });

  it("two users of the same upstream each call with their own account: tokens never cross", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const { source: aliceSource } = await registerOAuthTasksSource(alice, "Shared Upstream");
    const { source: bobSource } = await registerOAuthTasksSource(bob, "Shared Upstream");
    await connectSource(alice, aliceSource.id);
    await connectSource(bob, bobSource.id);
    await api(alice, "POST", "/api/tasks", { body: { title: "alice's own task" } });
    await api(bob, "POST", "/api/tasks", { body: { title: "bob's own task" } });

    expect(await titlesThroughSource(alice, aliceSource.slug)).toEqual(["alice's own task"]);
    expect(await titlesThroughSource(bob, bobSource.slug)).toEqual(["bob's own task"]);
    const [aliceTokens, bobTokens] = await Promise.all([storedTokens(alice.id, aliceSource.id), storedTokens(bob.id, bobSource.id)]);
    expect(aliceTokens!.access_token).not.toBe(bobTokens!.access_token);
    // Each user's row is sealed to that user and source: copied to the other's source it does not open.
    const aliceRow = await env.DB.prepare("SELECT tokens FROM source_authorizations WHERE source_id = ?")
      .bind(aliceSource.id)
      .first<{ tokens: string }>();
    await env.DB.prepare("UPDATE source_authorizations SET tokens = ? WHERE source_id = ?").bind(aliceRow!.tokens, bobSource.id).run();
    await expect(storedTokens(bob.id, bobSource.id)).rejects.toThrow();
  });

  it("refreshes an access token about to expire before the call, and audits it", async () => {
    const { owner, source, tokens: before } = await connectedTasksSource();
    await expireAccessToken(source.id);

    expect(await titlesThroughSource(owner, source.slug)).toEqual([]);
    const after = await storedTokens(owner.id, source.id);
    expect(after!.access_token).not.toBe(before.access_token);
    expect(after!.refresh_token).not.toBe(before.refresh_token);
    expect((await authorizationOf(owner, source.id)).refreshed_at).toEqual(expect.any(String));
    const audit = await upstreamAudit(owner.id, 2);
    expect(audit.map((entry) => entry.action)).toEqual(["connected", "refreshed"]);
    expect(JSON.stringify(audit)).not.toContain(after!.access_token);
  });

  it("refreshes and retries once when the upstream answers 401", async () => {
    const { owner, source, tokens: before } = await connectedTasksSource();
    // An access token the upstream does not know (revoked, or rotated out there), still within its stored lifetime.
    await replaceStoredTokens(owner.id, source.id, { ...before, access_token: "not-a-token-the-upstream-knows" });

    expect(await titlesThroughSource(owner, source.slug)).toEqual([]);
    const after = await storedTokens(owner.id, source.id);
    expect(after!.access_token).not.toBe("not-a-token-the-upstream-knows");
    expect(after!.refresh_token).not.toBe(before.refresh_token);
    expect((await authorizationOf(owner, source.id)).status).toBe("connected");
  });

  it("a refused refresh leaves the source authorization_expired: health says so, calls ask to connect again", async () => {
    const { owner, source, tokens } = await connectedTasksSource();
    await revokeAtUpstream(tokens.refresh_token!, "refresh_token");
    await expireAccessToken(source.id);

    const result = await callThroughGateway(owner, `${source.slug}__list_tasks`);
    expect(authorizationIn(result).state).toBe("authorization_expired");
    expect((await authorizationOf(owner, source.id)).status).toBe("authorization_expired");
    expect(await storedTokens(owner.id, source.id)).toBeNull();
    expect((await api<{ state: string }>(owner, "GET", `/api/sources/${source.id}/health`)).body.state).toBe("authorization_expired");
    expect((await upstreamAudit(owner.id, 2)).map((entry) => entry.action)).toEqual(["connected", "refresh_failed"]);

    // Connecting again heals it.
    await connectSource(owner, source.id);
    expect(await titlesThroughSource(owner, source.slug)).toEqual([]);
  });

  it("a 403 insufficient_scope asks for the union of granted and needed scopes; connecting with them lets the call through", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    await connectSource(owner, source.id, { scope: "tasks:read" });
    expect((await authorizationOf(owner, source.id)).granted_scope).toBe("tasks:read");

    const refused = await callThroughGateway(owner, `${source.slug}__add_task`, { title: "needs write" });
    const authorization = authorizationIn(refused);
    expect(authorization.scope?.split(" ").sort()).toEqual(["tasks:read", "tasks:write"]);
    // The link carries no scope (anyone can write one): the upstream's challenge was recorded for the next connect.
    expect(new URL(authorization.url).searchParams.has("scope")).toBe(false);
    expect((await authorizationOf(owner, source.id)).scopes_supported.sort()).toEqual(["tasks:read", "tasks:write"]);

    // The link the call carried, opened in the owner's browser: sign-in, confirm, consent to the wider scopes, back.
    const run = await followInBrowser(new Browser(), authorization.url, owner);
    expect(run.finalHtml).toContain("is connected to your account");
    expect((await authorizationOf(owner, source.id)).granted_scope?.split(" ").sort()).toEqual(["tasks:read", "tasks:write"]);
    const added = await callThroughGateway(owner, `${source.slug}__add_task`, { title: "needs write" });
    expect(added.isError, textOf(added)).toBeFalsy();
  });
});

describe("disconnect and delete", () => {
  it("disconnect revokes the tokens at the upstream and forgets them; calls then ask to connect", async () => {
    const { owner, source, tokens } = await connectedTasksSource();

    const res = await api<{ disconnected: boolean; revoked: boolean }>(owner, "DELETE", `/api/sources/${source.id}/authorization`);
    expect(res.body).toEqual({ disconnected: true, revoked: true });
    expect(await storedTokens(owner.id, source.id)).toBeNull();
    // The upstream Worker keeps no token cache in the tests (test/upstreams/upstream-worker.ts).
    const direct = await fetch(`${UPSTREAM_ORIGIN}/mcp/tasks`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(direct.status, "the revoked token no longer works upstream").toBe(401);
    expect((await authorizationOf(owner, source.id)).status).toBe("needs_authorization");
    expect((await upstreamAudit(owner.id, 2)).map((entry) => entry.action)).toEqual(["connected", "disconnected"]);
  });

  it("deleting the source revokes its tokens too", async () => {
    const { owner, source, tokens } = await connectedTasksSource();
    expect((await api(owner, "DELETE", `/api/sources/${source.id}`)).status).toBe(200);
    const refresh = await fetch(`${UPSTREAM_ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: CLIENT_ID }).toString(),
    });
    expect(refresh.status).toBe(400);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM source_authorizations WHERE source_id = ?").bind(source.id).first<{ n: number }>(),
    ).toEqual({ n: 0 });
  });

  it("another user cannot see, start or end a source's connection", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    for (const [method, path] of [
      ["GET", "authorization"],
      ["POST", "authorize"],
      ["DELETE", "authorization"],
    ] as const) {
      const res = await api<{ error: { code: string } }>(
        stranger,
        method,
        `/api/sources/${source.id}/${path}`,
        method === "POST" ? { body: {} } : {},
      );
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});

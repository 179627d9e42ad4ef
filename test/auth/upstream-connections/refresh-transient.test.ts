/**
 * A refresh the upstream's authorization server cannot answer for now (5xx, 429, an OAuth
 * `temporarily_unavailable`, no answer within the budget, a 200 whose body breaks off) keeps the
 * connection and its tokens: the call answers `unavailable` naming the source, and the next call
 * after the server recovers refreshes with the same refresh token — no new sign-in. A refusal
 * (`invalid_grant`, a 200 too long to be a token answer) still ends the connection. Against the
 * notes issuer (a real oidc-provider), whose token endpoint a test can make fail one client's
 * refreshes (test/upstreams/token-faults.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../../workers/lib/errors";
import type { TokenFault } from "../../upstreams/token-fault";
import { callThroughGateway, connectGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { connectedNotes, type ErrorMeta, expectKept, expectRecovers, workerConnections } from "../../helpers/notes-refresh";
import { answerRefreshes, failRefreshes, whoami } from "../../helpers/notes-upstream";
import { authorizationOf, expireAccessToken, storedTokens } from "../../helpers/upstream-oauth";

const TRANSIENT: { name: string; fault: TokenFault; reason: RegExp; retryAfterMs?: number }[] = [
  {
    name: "a 503 whose body is not JSON",
    fault: { status: 503, body: "<html>down for maintenance</html>", contentType: "text/html" },
    reason: /answered 503/,
  },
  {
    name: "a 500 server_error",
    fault: { status: 500, body: JSON.stringify({ error: "server_error" }) },
    reason: /answered 500 server_error/,
  },
  {
    name: "a 429 with Retry-After",
    fault: { status: 429, body: JSON.stringify({ error: "slow_down" }), retryAfter: "7" },
    reason: /answered 429 slow_down \(retry after 7 s\)/,
    retryAfterMs: 7000,
  },
  {
    name: "a 400 temporarily_unavailable",
    fault: { status: 400, body: JSON.stringify({ error: "temporarily_unavailable" }) },
    reason: /answered 400 temporarily_unavailable/,
  },
  // The server may have issued tokens it could not deliver; the kept refresh token is tried again.
  { name: "a 200 whose body breaks off", fault: { breakOff: true }, reason: /broke off its answer/ },
];

describe("a refresh the authorization server cannot answer for now", () => {
  for (const { name, fault, reason, retryAfterMs } of TRANSIENT) {
    it(`${name}: the connection and its tokens are kept, the call answers unavailable, the next call refreshes`, async () => {
      const connected = await connectedNotes();
      const { owner, source, clientId } = connected;
      await failRefreshes(clientId, fault);
      await expireAccessToken(source.id);

      const result = await callThroughGateway(owner, `${source.slug}__whoami`);
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toMatch(
        new RegExp(`^unavailable: Source ${source.id}: the upstream token could not be renewed — its authorization server `),
      );
      expect(text).toMatch(reason);
      expect(text).toContain("call again shortly");
      const meta = result._meta as ErrorMeta;
      expect(meta.error?.code).toBe("unavailable");
      expect(meta.error?.retry_after_ms).toBe(retryAfterMs);
      await expectKept(connected, reason);

      await answerRefreshes(clientId);
      await expectRecovers(connected, retryAfterMs);
    });
  }

  it("no answer within the refresh budget: the same, and the refresh ends within its budget", async () => {
    const connected = await connectedNotes();
    const { owner, source, clientId } = connected;
    await failRefreshes(clientId, { hang: true });
    await expireAccessToken(source.id);
    // A budget short enough for a test.
    const authorizations = workerConnections({ refreshBudgetMs: 300 });

    const failure = await authorizations.bearer({ id: source.id, userId: owner.id, mcpServerUrl: source.url }).then(
      (answer) => answer,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe("unavailable");
    expect((failure as AppError).message).toMatch(
      new RegExp(`^Source ${source.id}: .* did not answer within 1 s\\. The connection is kept; call again shortly$`),
    );
    await expectKept(connected, /did not answer within 1 s/);

    await answerRefreshes(clientId);
    await expectRecovers(connected);
  });

  it("calls waiting at the refresh gate take the holder's answer: one refresh tried, every call told the same", async () => {
    const connected = await connectedNotes();
    const { owner, source, clientId } = connected;
    await failRefreshes(clientId, { status: 503, body: "" });
    await expireAccessToken(source.id);

    const gateways = await Promise.all([connectGateway(owner), connectGateway(owner), connectGateway(owner)]);
    let texts: string[];
    try {
      const results = await Promise.all(gateways.map((gateway) => gateway.callTool({ name: `${source.slug}__whoami`, arguments: {} })));
      texts = results.map((result) => textOf(result));
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.close()));
    }
    expect(new Set(texts).size, texts.join("\n")).toBe(1);
    expect(texts[0]).toMatch(new RegExp(`^unavailable: Source ${source.id}: .* answered 503\\. The connection is kept`));
    const object = env.UPSTREAM_REFRESH_LEASE.get(env.UPSTREAM_REFRESH_LEASE.idFromName(String(source.id)));
    expect((await object.status()).rpc["beginTokenRefresh"]).toBe(3);
    expect(await answerRefreshes(clientId), "refresh requests the issuer failed").toBe(1);
    await expectKept(connected, /answered 503/);
    await expectRecovers(connected);
  });

  it("an access token not yet expired (renewed ahead of time) still serves the call while the server is down", async () => {
    const connected = await connectedNotes();
    const { owner, source, subject, clientId } = connected;
    await failRefreshes(clientId, { status: 503 });
    // Within the refresh margin (60 s) but not expired.
    await env.DB.prepare("UPDATE source_authorizations SET token_expires_at = ? WHERE source_id = ?")
      .bind(new Date(Date.now() + 30_000).toISOString(), source.id)
      .run();

    expect(await whoami(owner, source.slug)).toBe(subject);
    await expectKept(connected, /answered 503/);
    await answerRefreshes(clientId);
    await expireAccessToken(source.id);
    await expectRecovers(connected);
  });
});

describe("a refresh the authorization server refuses", () => {
  it("invalid_grant still ends the connection: tokens dropped, authorization_expired", async () => {
    const { owner, source, clientId } = await connectedNotes();
    await failRefreshes(clientId, { status: 400, body: JSON.stringify({ error: "invalid_grant", error_description: "grant revoked" }) });
    await expireAccessToken(source.id);

    const result = await callThroughGateway(owner, `${source.slug}__whoami`);
    expect((result._meta as { error_type?: string }).error_type).toBe("authorization_required");
    const authorization = await authorizationOf(owner, source.id);
    expect(authorization).toMatchObject({ status: "authorization_expired", last_error: "refresh: invalid_grant (400)" });
    expect(await storedTokens(owner.id, source.id)).toBeNull();
    await answerRefreshes(clientId);
  });

  it("a 200 too long to be a token answer: refused, as the same would come back next time", async () => {
    const { owner, source, clientId } = await connectedNotes();
    await failRefreshes(clientId, { status: 200, body: JSON.stringify({ access_token: "x".repeat(70 * 1024), token_type: "Bearer" }) });
    await expireAccessToken(source.id);

    const result = await callThroughGateway(owner, `${source.slug}__whoami`);
    expect((result._meta as { error_type?: string }).error_type).toBe("authorization_required");
    expect(await authorizationOf(owner, source.id)).toMatchObject({
      status: "authorization_expired",
      last_error: "refresh: answered 200 with a body over 64 KiB",
    });
    expect(await storedTokens(owner.id, source.id)).toBeNull();
    await answerRefreshes(clientId);
  });
});

/**
 * A refresh that failed for now with Retry-After: the pause the authorization server asked for is
 * kept across calls. Within it a call answers the same `unavailable` (with what is left of the
 * pause) without contacting the server; an access token that has not expired yet still serves
 * calls; after it, a call refreshes. The notes issuer's token endpoint counts the refreshes it
 * failed (test/upstreams/token-faults.ts); the time after the pause is the context's clock moved on.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callThroughGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { type Connected, connectedNotes, type ErrorMeta, expectKept, expectRecovers, workerConnections } from "../../helpers/notes-refresh";
import { answerRefreshes, failRefreshes, whoami } from "../../helpers/notes-upstream";
import { expireAccessToken } from "../../helpers/upstream-oauth";

const SLOW_DOWN = { status: 429, body: JSON.stringify({ error: "slow_down" }), retryAfter: "30" };

/** A connected notes source whose expired token's refresh was just answered 429 with Retry-After: 30 (by a first call). */
async function pausedForThirtySeconds(): Promise<Connected> {
  const connected = await connectedNotes();
  const { owner, source, clientId } = connected;
  await failRefreshes(clientId, SLOW_DOWN);
  await expireAccessToken(source.id);
  const first = await callThroughGateway(owner, `${source.slug}__whoami`);
  expect((first._meta as ErrorMeta).error).toMatchObject({ code: "unavailable", retry_after_ms: 30_000 });
  return connected;
}

describe("Retry-After from a refresh that failed for now", () => {
  it("calls within the pause answer unavailable without contacting the server; after it, a call refreshes", async () => {
    const connected = await pausedForThirtySeconds();
    const { owner, source, clientId } = connected;

    const second = await callThroughGateway(owner, `${source.slug}__whoami`);
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(
      new RegExp(`^unavailable: Source ${source.id}: .* answered 429 slow_down \\(retry after \\d+ s\\)\\. The connection is kept`),
    );
    const left = (second._meta as ErrorMeta).error?.retry_after_ms;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(30_000);
    expect(left! % 1000, "whole seconds").toBe(0);
    expect(await answerRefreshes(clientId), "refresh requests that reached the token endpoint").toBe(1);

    // The server would answer now, but the pause has not ended: still not asked.
    const third = await callThroughGateway(owner, `${source.slug}__whoami`);
    expect((third._meta as ErrorMeta).error?.code).toBe("unavailable");
    await expectKept(connected, /answered 429 slow_down \(retry after 30 s\)/);

    // After the pause (the context's clock moved past it), a call refreshes with the kept refresh token.
    await expectRecovers(connected, 30_000);
  });

  it("another write to the connection within the pause neither ends it nor moves it", async () => {
    const connected = await pausedForThirtySeconds();
    const { owner, source, clientId } = connected;

    // What a connect that failed in the meantime writes (connect-flow.service.ts): its own note, a new updated_at.
    await env.DB.prepare("UPDATE source_authorizations SET last_error = 'connect: access_denied', updated_at = ? WHERE source_id = ?")
      .bind(new Date(Date.now() + 20_000).toISOString(), source.id)
      .run();

    // Not ended: the server is still not asked, and the call says a pause was asked for.
    const second = await callThroughGateway(owner, `${source.slug}__whoami`);
    expect((second._meta as ErrorMeta).error?.code).toBe("unavailable");
    expect(textOf(second)).toMatch(/asked for a pause before the next refresh \(retry after \d+ s\)/);
    expect(await answerRefreshes(clientId), "refresh requests that reached the token endpoint").toBe(1);

    // Not moved: 31 s after the failure a call refreshes (counted from the later write, the pause would last 50 s).
    const later = workerConnections({ now: () => Date.now() + 31_000 });
    expect(await later.bearer({ id: source.id, userId: owner.id, mcpServerUrl: source.url })).toMatchObject({ token: expect.any(String) });
  });

  it("an access token not yet expired still serves calls within the pause, which do not contact the server", async () => {
    const connected = await connectedNotes();
    const { owner, source, subject, clientId } = connected;
    await failRefreshes(clientId, SLOW_DOWN);
    // Within the refresh margin (60 s) but not expired: each call would try to renew it ahead of time.
    await env.DB.prepare("UPDATE source_authorizations SET token_expires_at = ? WHERE source_id = ?")
      .bind(new Date(Date.now() + 45_000).toISOString(), source.id)
      .run();

    expect(await whoami(owner, source.slug)).toBe(subject);
    expect(await whoami(owner, source.slug)).toBe(subject);
    expect(await answerRefreshes(clientId), "refresh requests that reached the token endpoint").toBe(1);
    await expectKept(connected, /retry after 30 s/);
  });
});

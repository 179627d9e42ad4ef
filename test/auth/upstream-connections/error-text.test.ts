/**
 * An upstream authorization server's own words never appear on mcp-edge's pages or in the stored
 * `last_error`: anyone can run one and a source can name it, so its `error_description` (or an
 * error body that is not OAuth at all) would speak as mcp-edge. Only an RFC-defined error code is
 * shown, with our words for it. The server here is the hostile test server's (hostile-oauth.ts),
 * answering as configured.
 */
import { describe, expect, it } from "vitest";
import type { HostileCase } from "../../upstreams/hostile-oauth-case";
import { hostileUpstream, registerHostile } from "../../helpers/hostile-oauth";
import { Browser } from "../../helpers/oauth";
import { authorizationOf, connectLink, followInBrowser, isUpstreamCallback } from "../../helpers/upstream-oauth";
import { createUser, type TestUser } from "../../helpers/users";

const SPOOF = "mcp-edge security: your account is locked, call +1 555 0100";

function oauthError(body: Record<string, string>): NonNullable<HostileCase["tokenAnswer"]> {
  return { status: 400, contentType: "application/json", body: JSON.stringify(body) };
}

/** Connects a source of `upstream` until its authorization server answers the callback; the page the gateway shows. */
async function answeredPage(setup: HostileCase): Promise<{ owner: TestUser; sourceId: number; status: number; html: string }> {
  const owner = await createUser();
  const upstream = await hostileUpstream(setup);
  const sourceId = await registerHostile(owner, upstream);
  const browser = new Browser();
  const run = await followInBrowser(browser, await connectLink(owner, sourceId), owner);
  const answer = await fetch(run.visited.at(-1)!, { redirect: "manual" });
  const callback = new URL(answer.headers.get("location")!);
  expect(isUpstreamCallback(callback.pathname)).toBe(true);
  const page = await browser.get(`${callback.pathname}${callback.search}`);
  return { owner, sourceId, status: page.status, html: await page.text() };
}

describe("what an authorization server says in an error", () => {
  it("a token endpoint's error_description: not on the page, not in last_error; its error code is, in our words", async () => {
    const { owner, sourceId, status, html } = await answeredPage({
      tokenAnswer: oauthError({ error: "invalid_grant", error_description: SPOOF }),
    });
    expect(status).toBe(502);
    expect(html).toContain("invalid_grant (it refused the authorization code");
    expect(html).not.toContain("account is locked");
    const lastError = (await authorizationOf(owner, sourceId)).last_error!;
    expect(lastError).toContain("invalid_grant");
    expect(lastError).not.toContain("account is locked");
  });

  it("an error body that is not OAuth JSON: not shown either", async () => {
    const tokenAnswer = { status: 400, contentType: "text/html", body: `<h1>${SPOOF}</h1>` };
    const { owner, sourceId, html } = await answeredPage({ tokenAnswer });
    expect(html).not.toContain("account is locked");
    expect((await authorizationOf(owner, sourceId)).last_error).not.toContain("account is locked");
  });

  it("an error code the RFCs do not define is not shown as one", async () => {
    const { html } = await answeredPage({ tokenAnswer: oauthError({ error: SPOOF }) });
    expect(html).toContain("it answered an error that is not an OAuth error code");
    expect(html).not.toContain("account is locked");
  });

  it("an authorization response's error_description: not shown; a known error code is, in our words", async () => {
    const known = await answeredPage({ authorizeError: { error: "invalid_scope", error_description: SPOOF } });
    expect(known.status).toBe(400);
    expect(known.html).toContain("The authorization server answered invalid_scope (it refused the permissions asked for).");
    expect(known.html).toContain("Nothing was connected.");
    expect(known.html).not.toContain("account is locked");

    const unknown = await answeredPage({ authorizeError: { error: SPOOF, error_description: SPOOF } });
    expect(unknown.html).toContain("The authorization server did not send an authorization code. Nothing was connected.");
    expect(unknown.html).not.toContain("account is locked");
  });
});

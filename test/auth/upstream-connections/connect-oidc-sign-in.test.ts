/**
 * The connect pages offer the same sign-in methods as /authorize (issue 22): a fresh browser that
 * opens a connect link sees "Continue with Test ID" (the OpenID provider the auth project runs),
 * signs in there and lands back on the connect confirmation — no app is waiting for a code, so no
 * consent page comes first — then connects. The return is bound to the browser that started it.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { generateToken, hashToken } from "../../../workers/auth/tokens";
import { authorizeUrl, Browser, formFields, ORIGIN, pkce, registerClient } from "../../helpers/oauth";
import { authorizeWithProvider, ProviderTab, signInAtProvider } from "../../helpers/oidc";
import { followInBrowser, publishGatewayClientDocument, registerOAuthTasksSource } from "../../helpers/upstream-oauth";
import { upstreams } from "../../helpers/upstreams";
import type { TestUser } from "../../helpers/users";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

/** A user who exists only through the provider (signed in once through an app), with an API token to set up their source. */
async function providerUser(): Promise<{ subject: string; user: TestUser }> {
  const subject = `sub-${crypto.randomUUID().slice(0, 8)}`;
  const { challenge } = await pkce();
  const url = authorizeUrl({ clientId: await registerClient(), challenge, scope: "tasks:read" });
  expect((await authorizeWithProvider(new Browser(), url, subject)).status).toBe(302);
  const row = await env.DB.prepare(
    "SELECT users.id, users.name FROM user_identities JOIN users ON users.id = user_identities.user_id WHERE subject = ?",
  )
    .bind(subject)
    .first<{ id: number; name: string }>();
  const token = generateToken();
  await env.DB.prepare("INSERT INTO api_tokens (user_id, token_hash, label) VALUES (?, ?, 'test')")
    .bind(row!.id, await hashToken(token))
    .run();
  return { subject, user: { id: row!.id, name: row!.name, token, headers: { authorization: `Bearer ${token}` } } };
}

function methodsOf(html: string): string[] {
  return [...html.matchAll(/<input type="hidden" name="method" value="([^"]+)">/g)].map((match) => match[1]!);
}

/** A fresh browser opens the connect link and picks the provider: the redirect to it. */
async function chooseProviderAtLink(browser: Browser, link: string): Promise<Response> {
  const page = await browser.get(link);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain("Continue with Test ID");
  return browser.post("/authorize", Object.entries(formFields(html, "oidc")));
}

describe("a connect link in a fresh browser of an OpenID-only user", () => {
  it("offers every sign-in method /authorize offers, the provider first", async () => {
    const { user } = await providerUser();
    const { source } = await registerOAuthTasksSource(user);
    const connectPage = await (await new Browser().get(`/oauth/upstream/connect?source_id=${source.id}`)).text();
    const { challenge } = await pkce();
    const authorizePage = await (await new Browser().get(authorizeUrl({ clientId: await registerClient(), challenge }))).text();
    expect(methodsOf(connectPage)).toEqual(methodsOf(authorizePage));
    expect(methodsOf(connectPage)[0]).toBe("oidc");
  });

  it("signs in at the provider, lands back on the connect confirmation, and connects", async () => {
    const { subject, user } = await providerUser();
    const { source } = await registerOAuthTasksSource(user);
    const link = `/oauth/upstream/connect?source_id=${source.id}`;
    const browser = new Browser();

    const toProvider = await chooseProviderAtLink(browser, link);
    expect(toProvider.status, "no consent page: no app waits for a code").toBe(303);
    const at = new URL(toProvider.headers.get("location")!);
    expect(at.origin).toBe(upstreams().oidc_provider);
    const callback = await signInAtProvider(new ProviderTab(), at.href, subject);
    const back = await browser.get(`${callback.pathname}${callback.search}`);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe(link);
    expect(back.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(true);

    const confirmation = await browser.get(back.headers.get("location")!);
    expect(confirmation.status).toBe(200);
    const html = await confirmation.text();
    expect(html).toContain('value="connect_upstream"');
    expect(html).toContain(source.name);

    const run = await followInBrowser(browser, `${ORIGIN}${link}`, user);
    expect(run.finalHtml).toContain("is connected to your account");
  });

  it("the provider's answer opened in another browser, or a second time, signs no one in", async () => {
    const { subject, user } = await providerUser();
    const { source } = await registerOAuthTasksSource(user);
    const browser = new Browser();
    const toProvider = await chooseProviderAtLink(browser, `/oauth/upstream/connect?source_id=${source.id}`);
    const callback = await signInAtProvider(new ProviderTab(), toProvider.headers.get("location")!, subject);
    const path = `${callback.pathname}${callback.search}`;

    const elsewhere = await new Browser().get(path);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(false);

    expect((await browser.get(path)).status).toBe(303);
    const replay = await new Browser().get(path);
    expect(replay.status).toBeGreaterThanOrEqual(400);
    expect(replay.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(false);
  });

  it("the user declining at the provider gets a page saying so, and no session", async () => {
    const { subject, user } = await providerUser();
    const { source } = await registerOAuthTasksSource(user);
    const browser = new Browser();
    const toProvider = await chooseProviderAtLink(browser, `/oauth/upstream/connect?source_id=${source.id}`);
    const callback = await signInAtProvider(new ProviderTab(), toProvider.headers.get("location")!, subject, { abort: true });
    const answer = await browser.get(`${callback.pathname}${callback.search}`);
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("Test ID did not sign you in: access_denied");
    expect(answer.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(false);
  });
});

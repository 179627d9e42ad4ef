/**
 * Sign-in through the test OpenID Provider (test/upstreams/oidc-provider.ts), as a browser does
 * it: the Worker's sign-in page → "Continue with Test ID" → the Worker's consent page → Allow →
 * the provider's own login and consent pages → back to the Worker's callback → the client's
 * redirect URI. The provider is a real server on loopback with its own cookies (a second jar).
 */
import { expect } from "vitest";
import { Browser, CookieJar, formFields, offeredScopes } from "./oauth";
import { upstreams } from "./upstreams";

function providerBase(): string {
  return upstreams().oidc_provider;
}

/** The provider's side of the browser: its own cookies, real network (loopback). */
export class ProviderTab {
  readonly jar = new CookieJar();

  async request(url: string, form?: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = { cookie: this.jar.header() };
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(new URL(url, providerBase()), {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: "manual",
    });
    this.jar.store(response);
    return response;
  }
}

/** Sets the claims the provider puts in a subject's ID token (default: preferred_username = sub). */
export async function setAccountClaims(subject: string, claims: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${providerBase()}/test-control/accounts/${encodeURIComponent(subject)}`, {
    method: "PUT",
    body: JSON.stringify(claims),
  });
  expect(response.status).toBe(204);
}

/** Makes the provider answer the code's token request with a tampered ID token. */
export async function tamperWithIdToken(code: string, tamper: { claims?: Record<string, unknown>; foreignKey?: boolean }): Promise<void> {
  const response = await fetch(`${providerBase()}/test-control/tamper/${encodeURIComponent(code)}`, {
    method: "PUT",
    body: JSON.stringify(tamper),
  });
  expect(response.status).toBe(204);
}

/**
 * Follows the provider from its authorization URL: logs in as `subject` and consents on its pages
 * (or aborts there), until it redirects back to the Worker; returns that callback URL.
 */
export async function signInAtProvider(
  tab: ProviderTab,
  authorizationUrl: string,
  subject: string,
  options: { abort?: boolean } = {},
): Promise<URL> {
  const providerOrigin = new URL(authorizationUrl).origin;
  let response = await tab.request(authorizationUrl);
  for (let step = 0; step < 12; step++) {
    const location = response.headers.get("location");
    if (location) {
      const next = new URL(location, providerOrigin);
      if (next.origin !== providerOrigin) return next;
      response = await tab.request(next.href);
      continue;
    }
    expect(response.status, "the provider shows a page").toBe(200);
    const html = await response.text();
    const formAction = /<form[^>]* action="([^"]+)"/.exec(html)?.[1];
    expect(formAction, `a form on the provider's page: ${html.slice(0, 300)}`).toBeDefined();
    const action = new URL(formAction!, providerOrigin).href;
    if (html.includes('name="login"')) {
      if (options.abort) {
        response = await tab.request(`${action}/abort`);
        continue;
      }
      response = await tab.request(action, { prompt: "login", login: subject, password: "any" });
    } else {
      response = await tab.request(action, { prompt: "consent" });
    }
  }
  throw new Error("the provider never redirected back");
}

/** The Worker's sign-in page → the OpenID method: answers with the consent page shown before the redirect. */
export async function chooseProvider(browser: Browser, authorizationUrl: string): Promise<Response> {
  const page = await browser.get(authorizationUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain("Continue with Test ID");
  return browser.post("/authorize", Object.entries(formFields(html, "oidc")));
}

/** Approves the consent page shown before the redirect; answers with the redirect to the provider. */
export async function allowAndContinue(browser: Browser, consent: Response, scopes?: string[]): Promise<Response> {
  expect(consent.status).toBe(200);
  const html = await consent.text();
  const fields = formFields(html, "consent");
  expect(fields["then"]).toBe("oidc");
  const chosen = scopes ?? offeredScopes(html);
  return browser.post("/authorize", [
    ...Object.entries(fields),
    ["decision", "approve"],
    ...chosen.map((scope): [string, string] => ["scope", scope]),
  ]);
}

/**
 * The whole way from a client's authorization URL to the Worker's callback answer, signing in at
 * the provider as `subject`. Returns the Worker's answer to the callback (a redirect to the client).
 */
export async function authorizeWithProvider(
  browser: Browser,
  authorizationUrl: string,
  subject: string,
  tab = new ProviderTab(),
): Promise<Response> {
  const toProvider = await allowAndContinue(browser, await chooseProvider(browser, authorizationUrl));
  expect(toProvider.status, "Allow sends the browser to the provider").toBe(303);
  const callback = await signInAtProvider(tab, toProvider.headers.get("location")!, subject);
  return browser.get(`${callback.pathname}${callback.search}`);
}

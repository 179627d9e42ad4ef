/**
 * Sign-in with an external OpenID Connect provider, against a real one: the certified
 * `oidc-provider` package run on loopback by the auth project's global setup. The whole dance is
 * scripted as a browser does it — the official MCP client meets the 401, the user picks the
 * provider, approves here first, logs in at the provider, comes back — and ends in a tool call
 * with the token the client got. Then what must never sign anyone in: an ID token with the wrong
 * audience, nonce or issuer, or a foreign signature; a callback from another browser or replayed;
 * a provider that refuses or is down.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { UnauthorizedError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { createApp } from "../../workers/app";
import { callOk, workerFetch } from "../helpers/mcp";
import {
  authorizeUrl,
  Browser,
  formFields,
  LOOPBACK_REDIRECT,
  mcpClient,
  oauthTransport,
  ORIGIN,
  pkce,
  registerClient,
  TestOAuthProvider,
  tokenRequest,
} from "../helpers/oauth";
import {
  allowAndContinue,
  authorizeWithProvider,
  chooseProvider,
  ProviderTab,
  setAccountClaims,
  signInAtProvider,
  tamperWithIdToken,
} from "../helpers/oidc";
import { upstreams } from "../helpers/upstreams";
import { createUser } from "../helpers/users";
import { OIDC_CLIENT_ID, OIDC_REDIRECT_URI } from "../upstreams/oidc-test-client";

function newSubject(): string {
  return `sub-${crypto.randomUUID().slice(0, 8)}`;
}

async function linkedUser(subject: string): Promise<{ id: number; name: string } | null> {
  return env.DB.prepare(
    "SELECT users.id, users.name FROM user_identities JOIN users ON users.id = user_identities.user_id WHERE issuer = ? AND subject = ?",
  )
    .bind(upstreams().oidc_provider, subject)
    .first<{ id: number; name: string }>();
}

/** A client's authorization request for /mcp/tasks (DCR client, PKCE), and how to redeem its code. */
async function newAuthorization(scope = "tasks:read tasks:write") {
  const clientId = await registerClient();
  const { verifier, challenge } = await pkce();
  // The root resource, so the token also works on /api (a /mcp/tasks token would not).
  const url = authorizeUrl({ clientId, challenge, scope, resource: ORIGIN, state: `state-${crypto.randomUUID()}` });
  const redeem = async (callback: URL): Promise<string> => {
    const code = callback.searchParams.get("code");
    expect(code, `the client got a code (${callback.search})`).toBeTruthy();
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code: code!,
      client_id: clientId,
      redirect_uri: LOOPBACK_REDIRECT,
      code_verifier: verifier,
    });
    expect(res.status).toBe(200);
    return (await res.json<{ access_token: string }>()).access_token;
  };
  return { clientId, url, redeem };
}

async function signInAs(subject: string, scope?: string): Promise<string> {
  const { url, redeem } = await newAuthorization(scope);
  const answer = await authorizeWithProvider(new Browser(), url, subject);
  expect(answer.status).toBe(302);
  return redeem(new URL(answer.headers.get("location")!));
}

async function listTasks(token: string): Promise<{ id: number; title: string }[]> {
  const res = await fetchApi(token, "GET", "/api/tasks");
  expect(res.status).toBe(200);
  return (await res.json<{ tasks: { id: number; title: string }[] }>()).tasks;
}

function fetchApi(token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return workerFetch(`${ORIGIN}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function unescapeHtml(html: string): string {
  return html.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}

/** The "Return to the app" link of an error page: the client's redirect URI with the OAuth error. */
function backLink(html: string): URL {
  const href = /<a class="button" href="([^"]+)">Return to the app<\/a>/.exec(html)?.[1];
  expect(href, "the page links back to the app").toBeDefined();
  return new URL(unescapeHtml(href!));
}

/** A browser on a Worker whose bindings differ from the tests' (a provider that is down, a wrong secret). */
function browserWith(overrides: Partial<Env>): Browser {
  const app = createApp();
  return new Browser(async (input, init) => {
    const request = new Request(input, init);
    request.headers.set("host", new URL(request.url).host);
    return app.fetch(request, { ...env, ...overrides }, createExecutionContext());
  });
}

describe("sign-in with an OpenID provider, end to end", () => {
  it("an MCP client meets the 401, the user approves here, logs in at the provider, and the client calls list_tasks", async () => {
    const subject = newSubject();
    const provider = new TestOAuthProvider({ name: "OIDC flow client" });
    await expect(mcpClient("2026-07-28").connect(oauthTransport("/mcp/tasks", provider))).rejects.toBeInstanceOf(UnauthorizedError);
    const browser = new Browser();

    // Consent before the redirect: choosing the provider shows this server's consent page, not the provider.
    const consent = await chooseProvider(browser, provider.authorizationUrl!.href);
    expect(consent.status).toBe(200);
    expect(consent.headers.get("location")).toBeNull();
    const consentHtml = await consent.clone().text();
    expect(consentHtml).toContain("Allow OIDC flow client to use your account?");
    expect(consentHtml).toContain("Allow and sign in with Test ID");
    expect(consentHtml).toContain("tasks:read");
    // Its answer redirects to the provider, so the page's form-action allows the provider's origin.
    expect(consent.headers.get("content-security-policy")).toContain(
      `form-action 'self' http://127.0.0.1:33418 ${upstreams().oidc_provider}`,
    );

    const toProvider = await allowAndContinue(browser, consent);
    expect(toProvider.status).toBe(303);
    const at = new URL(toProvider.headers.get("location")!);
    expect(at.origin).toBe(upstreams().oidc_provider);
    expect(Object.fromEntries(at.searchParams)).toMatchObject({
      response_type: "code",
      client_id: OIDC_CLIENT_ID,
      redirect_uri: OIDC_REDIRECT_URI,
      scope: "openid profile email",
      code_challenge_method: "S256",
    });
    expect(at.searchParams.get("state")).toBeTruthy();
    expect(at.searchParams.get("nonce")).toBeTruthy();
    expect(at.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The state is bound to this browser by a __Host- cookie.
    expect(
      toProvider.headers.getSetCookie().some((line) => line.startsWith("__Host-") && /; Secure/i.test(line) && /; HttpOnly/i.test(line)),
    ).toBe(true);

    const callback = await signInAtProvider(new ProviderTab(), at.href, subject);
    expect(callback.origin + callback.pathname).toBe(OIDC_REDIRECT_URI);
    const answer = await browser.get(`${callback.pathname}${callback.search}`);
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get("location")!);
    expect(back.origin + back.pathname).toBe(LOOPBACK_REDIRECT);
    expect(back.searchParams.get("iss")).toBe(ORIGIN);
    // Signed in here too: the next authorization in this browser needs no provider.
    expect(answer.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(true);

    await oauthTransport("/mcp/tasks", provider).finishAuth(back.searchParams);
    const client = mcpClient("2026-07-28");
    await client.connect(oauthTransport("/mcp/tasks", provider));
    expect((await callOk<{ tasks: unknown[] }>(client, "list_tasks")).tasks).toEqual([]);
    await client.close();

    const user = await linkedUser(subject);
    expect(user?.name).toBe(subject);
  });

  it("a second sign-in of the same subject is the same user; another subject is another user", async () => {
    const alice = newSubject();
    const bob = newSubject();
    const first = await signInAs(alice);
    const added = await fetchApi(first, "POST", "/api/tasks", { title: "Written on the first sign-in" });
    expect(added.status).toBe(201);

    const second = await signInAs(alice);
    expect((await listTasks(second)).map((task) => task.title)).toContain("Written on the first sign-in");

    const other = await signInAs(bob);
    expect(await listTasks(other)).toEqual([]);
    const [a, b] = [await linkedUser(alice), await linkedUser(bob)];
    expect(a && b && a.id !== b.id).toBe(true);
    const links = await env.DB.prepare("SELECT COUNT(*) AS n FROM user_identities WHERE subject = ?").bind(alice).first<{ n: number }>();
    expect(links?.n).toBe(1);
  });

  it("a new user gets a clean name, and never the account of a local user who already has that name", async () => {
    const taken = `ops-${crypto.randomUUID().slice(0, 6)}`;
    const local = await createUser(taken);
    const subject = newSubject();
    await setAccountClaims(subject, { preferred_username: taken });
    const token = await signInAs(subject);
    const user = await linkedUser(subject);
    expect(user?.name).toBe(`${taken}-2`);
    expect(user?.id).not.toBe(local.id);
    expect(await listTasks(token)).toEqual([]);

    const accented = newSubject();
    await setAccountClaims(accented, { preferred_username: `José Müller (${accented})` });
    await signInAs(accented);
    expect((await linkedUser(accented))?.name).toBe(`Jose-Muller-${accented}`);
  });
});

describe("what never signs anyone in", () => {
  /** Runs the flow up to the provider's callback, tampers with the ID token of that code, then delivers it. */
  async function callbackWithTamperedToken(
    tamper: Parameters<typeof tamperWithIdToken>[1],
  ): Promise<{ answer: Response; subject: string }> {
    const subject = newSubject();
    const { url } = await newAuthorization();
    const browser = new Browser();
    const toProvider = await allowAndContinue(browser, await chooseProvider(browser, url));
    const callback = await signInAtProvider(new ProviderTab(), toProvider.headers.get("location")!, subject);
    await tamperWithIdToken(callback.searchParams.get("code")!, tamper);
    return { answer: await browser.get(`${callback.pathname}${callback.search}`), subject };
  }

  it.each([
    ["a wrong audience", { claims: { aud: "some-other-client" } }, /"aud" \(audience\)/],
    ["a wrong nonce", { claims: { nonce: "not-the-nonce-sent" } }, /"nonce"/],
    ["a wrong issuer", { claims: { iss: "https://issuer.example" } }, /"iss" \(issuer\)/],
    ["an expired token", { claims: { exp: Math.floor(Date.now() / 1000) - 3600 } }, /"exp"/],
    ["a signature by a key the provider never published", { foreignKey: true }, /signature/i],
  ])("an ID token with %s is refused: no user, no session, the client is told", async (_what, tamper, reason) => {
    const { answer, subject } = await callbackWithTamperedToken(tamper);
    expect(answer.status).toBe(502);
    const html = unescapeHtml(await answer.text());
    expect(html).toContain("Test ID returned an ID token that is not valid");
    expect(html).toMatch(reason);
    expect(answer.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(false);
    expect(await linkedUser(subject)).toBeNull();
    const back = backLink(html);
    expect(back.origin + back.pathname).toBe(LOOPBACK_REDIRECT);
    expect(back.searchParams.get("error")).toBe("server_error");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("the untampered token of the same kind of flow is accepted (the tampering above is what fails)", async () => {
    const { answer, subject } = await callbackWithTamperedToken({ claims: {} });
    expect(answer.status).toBe(302);
    expect(await linkedUser(subject)).not.toBeNull();
  });

  it("a callback opened in another browser, or a second time, is refused", async () => {
    const { url } = await newAuthorization();
    const browser = new Browser();
    const toProvider = await allowAndContinue(browser, await chooseProvider(browser, url));
    const callback = await signInAtProvider(new ProviderTab(), toProvider.headers.get("location")!, newSubject());
    const path = `${callback.pathname}${callback.search}`;

    const elsewhere = await new Browser().get(path);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(false);

    expect((await browser.get(path)).status).toBe(302);
    const replay = await browser.get(path);
    expect(replay.status).toBe(400);
  });

  it("the user declining at the provider goes back to the client as access_denied", async () => {
    const { url } = await newAuthorization();
    const browser = new Browser();
    const toProvider = await allowAndContinue(browser, await chooseProvider(browser, url));
    const callback = await signInAtProvider(new ProviderTab(), toProvider.headers.get("location")!, newSubject(), { abort: true });
    expect(callback.searchParams.get("error")).toBe("access_denied");
    const answer = await browser.get(`${callback.pathname}${callback.search}`);
    expect(answer.status).toBe(403);
    const html = await answer.text();
    expect(html).toContain("Test ID did not sign you in: access_denied");
    expect(backLink(html).searchParams.get("error")).toBe("access_denied");
  });

  it("denying on this server's consent page never reaches the provider", async () => {
    const { url } = await newAuthorization();
    const browser = new Browser();
    const consent = await chooseProvider(browser, url);
    const fields = formFields(await consent.text(), "consent");
    const denied = await browser.post("/authorize", [...Object.entries(fields), ["decision", "deny"], ["scope", "tasks:read"]]);
    expect(denied.status).toBe(302);
    const back = new URL(denied.headers.get("location")!);
    expect(back.origin + back.pathname).toBe(LOOPBACK_REDIRECT);
    expect(back.searchParams.get("error")).toBe("access_denied");
  });

  it("a consent given for signing in at the provider goes to the provider, even if the browser signed in otherwise meanwhile", async () => {
    const browser = new Browser();
    const consent = await chooseProvider(browser, (await newAuthorization()).url);
    // In another tab of the same browser, the user signs in with an API token.
    const other = await browser.get((await newAuthorization()).url);
    const user = await createUser();
    const signedIn = await browser.post("/authorize", [
      ...Object.entries(formFields(await other.text(), "api_token")),
      ["token", user.token],
    ]);
    expect(signedIn.status).toBe(303);
    // The first tab's Allow still means "the account I sign in as at Test ID": no code for the token's user.
    const answer = await allowAndContinue(browser, consent);
    expect(answer.status).toBe(303);
    expect(new URL(answer.headers.get("location")!).origin).toBe(upstreams().oidc_provider);
  });

  it("a provider that is down is named on the sign-in page (503), never a 500", async () => {
    // A loopback port nothing listens on: the provider's discovery fails.
    const browser = browserWith({ OIDC_ISSUER: "http://127.0.0.1:9" });
    const { url } = await newAuthorization();
    const answer = await chooseProvider(browser, url);
    expect(answer.status).toBe(503);
    const html = await answer.text();
    expect(html).toContain("Test ID could not be reached");
    expect(html).toContain('value="sign_in"');
  });

  it("a provider that refuses this server's credentials is named, and the client is told", async () => {
    const browser = browserWith({ OIDC_CLIENT_SECRET: "not-the-registered-secret" });
    const { url } = await newAuthorization();
    const toProvider = await allowAndContinue(browser, await chooseProvider(browser, url));
    const callback = await signInAtProvider(new ProviderTab(), toProvider.headers.get("location")!, newSubject());
    const answer = await browser.get(`${callback.pathname}${callback.search}`);
    expect(answer.status).toBe(403);
    const html = await answer.text();
    expect(html).toContain("Test ID refused to finish the sign-in: invalid_client");
    expect(backLink(html).searchParams.get("error")).toBe("access_denied");
  });

  it("a configuration without a client id says so on the sign-in page", async () => {
    const browser = browserWith({ OIDC_CLIENT_ID: "" });
    const { url } = await newAuthorization();
    const answer = await chooseProvider(browser, url);
    expect(answer.status).toBe(503);
    expect(await answer.text()).toContain("OIDC_CLIENT_ID is not set");
  });
});

/**
 * The /authorize page: sign-in (API token, one-time code or link), consent and its memory, CSRF,
 * escaping, framing, and where errors go (shown here before the client and redirect URI are
 * validated; sent back to the client after).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { workerFetch } from "../helpers/mcp";
import {
  authorizeInBrowser,
  authorizeUrl,
  Browser,
  formFields,
  LOOPBACK_REDIRECT,
  offeredScopes,
  ORIGIN,
  pkce,
  publishClientMetadata,
  registerClient,
} from "../helpers/oauth";
import { createLoginCode, createUser, type TestUser, withScopedToken } from "../helpers/users";

async function signInPage(browser: Browser, url: string): Promise<string> {
  const res = await browser.get(url);
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain('value="sign_in"');
  return html;
}

async function newAuthorization(
  options: { scope?: string; redirectUri?: string; clientId?: string } = {},
): Promise<{ clientId: string; url: string }> {
  const clientId = options.clientId ?? (await registerClient(options.redirectUri ? [options.redirectUri] : undefined));
  const { challenge } = await pkce();
  return {
    clientId,
    url: authorizeUrl({
      clientId,
      challenge,
      scope: options.scope ?? "tasks:read",
      ...(options.redirectUri ? { redirectUri: options.redirectUri } : {}),
    }),
  };
}

async function signIn(browser: Browser, url: string, user: TestUser): Promise<Response> {
  const html = await signInPage(browser, url);
  return browser.post("/authorize", [...Object.entries(formFields(html, "api_token")), ["token", user.token]]);
}

describe("signing in", () => {
  it("with an API token sets a __Host- session cookie and returns to the authorization", async () => {
    const user = await createUser();
    const { url } = await newAuthorization();
    const browser = new Browser();
    const res = await signIn(browser, url, user);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(new URL(url).pathname + new URL(url).search);
    const cookie = res.headers.getSetCookie().find((line) => line.startsWith("__Host-mcpe-session="))!;
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    const consent = await browser.get(res.headers.get("location")!);
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain(`Signed in as <strong>${user.name}</strong>`);
  });

  it("a wrong API token shows the sign-in page again with the reason", async () => {
    const { url } = await newAuthorization();
    const browser = new Browser();
    const html = await signInPage(browser, url);
    const res = await browser.post("/authorize", [...Object.entries(formFields(html, "api_token")), ["token", "mcpe_wrong"]]);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("That API token is not valid");
    expect(res.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(false);
  });

  it("refuses a sign-in post without this browser's CSRF token (another site's form)", async () => {
    const user = await createUser();
    const { url } = await newAuthorization();
    const html = await signInPage(new Browser(), url);
    const fields = formFields(html, "api_token");
    // Another browser (no CSRF cookie) posts the same form: refused.
    const attacker = new Browser();
    const res = await attacker.post("/authorize", [...Object.entries(fields), ["token", user.token]]);
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(false);
    // The right browser with a foreign Origin: refused too.
    const victim = new Browser();
    const own = await signInPage(victim, url);
    const crossSite = await victim.post(
      "/authorize",
      [...Object.entries(formFields(own, "api_token")), ["token", user.token]],
      "https://evil.example",
    );
    expect(crossSite.status).toBe(403);
  });

  it("never returns anywhere but an authorization request on this origin", async () => {
    const user = await createUser();
    const { url } = await newAuthorization();
    const browser = new Browser();
    const html = await signInPage(browser, url);
    const fields = { ...formFields(html, "api_token"), return_to: "https://evil.example/phish" };
    const res = await browser.post("/authorize", [...Object.entries(fields), ["token", user.token]]);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("signing out (the console's Sign out)", () => {
  it("ends this browser's sign-in: the next authorization asks to sign in again", async () => {
    const user = await createUser();
    const { url } = await newAuthorization();
    const browser = new Browser();
    expect((await signIn(browser, url, user)).status).toBe(303);
    expect((await browser.get(url)).status).toBe(200);
    expect(await (await browser.get(url)).text()).not.toContain('value="sign_in"');

    const out = await browser.post("/authorize/sign-out", []);
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().some((line) => /^__Host-mcpe-session=;.*Max-Age=0/.test(line))).toBe(true);
    expect(browser.jar.cookies.has("__Host-mcpe-session")).toBe(false);
    expect(await (await browser.get(url)).text()).toContain('value="sign_in"');
  });

  it("the session row is gone, so an old cookie signs in no one; another site cannot sign the user out", async () => {
    const user = await createUser();
    const { url } = await newAuthorization();
    const browser = new Browser();
    await signIn(browser, url, user);
    const cookie = browser.jar.cookies.get("__Host-mcpe-session")!;

    const crossSite = await browser.post("/authorize/sign-out", [], "https://evil.example");
    expect(crossSite.status).toBe(403);
    expect(await (await browser.get(url)).text()).not.toContain('value="sign_in"');

    await browser.post("/authorize/sign-out", []);
    const replayed = new Browser();
    replayed.jar.cookies.set("__Host-mcpe-session", cookie);
    expect(await (await replayed.get(url)).text()).toContain('value="sign_in"');
  });
});

describe("a scoped API token signs in only for what it grants", () => {
  it("the consent page offers only the token's own scopes", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    const { url } = await newAuthorization({ scope: "tasks:read tasks:write" });
    const browser = new Browser();
    const signedIn = await signIn(browser, url, reader);
    const html = await (await browser.get(signedIn.headers.get("location")!)).text();
    expect(offeredScopes(html)).toEqual(["tasks:read"]);
    // A forged form adding tasks:write is narrowed to what the sign-in may grant.
    const res = await browser.post("/authorize", [
      ...Object.entries(formFields(html, "consent")),
      ["decision", "approve"],
      ["scope", "tasks:read"],
      ["scope", "tasks:write"],
    ]);
    expect(res.status).toBe(302);
    const row = await env.DB.prepare("SELECT scopes FROM oauth_consents WHERE user_id = ?").bind(reader.id).first<{ scopes: string }>();
    expect(JSON.parse(row!.scopes)).toEqual(["tasks:read"]);
  });

  it("asking only for scopes the token does not grant is refused on the page", async () => {
    const reader = await withScopedToken(await createUser(), ["tasks:read"]);
    // A scope /mcp/tasks serves (one it does not serve goes back to the client as invalid_scope).
    const { url } = await newAuthorization({ scope: "tasks:write" });
    const browser = new Browser();
    const signedIn = await signIn(browser, url, reader);
    const res = await browser.get(signedIn.headers.get("location")!);
    expect(res.status).toBe(403);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("grants none of the permissions this app asks for");
  });
});

describe("one-time sign-in links", () => {
  it("a pasted code signs in once; the same code is refused the second time", async () => {
    const user = await createUser();
    const code = await createLoginCode(user);
    const { url } = await newAuthorization();
    const browser = new Browser();
    const html = await signInPage(browser, url);
    const res = await browser.post("/authorize", [...Object.entries(formFields(html, "login_link")), ["code", code]]);
    expect(res.status).toBe(303);

    const other = new Browser();
    const again = await signInPage(other, url);
    const reused = await other.post("/authorize", [...Object.entries(formFields(again, "login_link")), ["code", code]]);
    expect(reused.status).toBe(401);
    expect(await reused.text()).toContain("already used, has expired");
  });

  it("an expired code is refused", async () => {
    const user = await createUser();
    const code = await createLoginCode(user, new Date(Date.now() - 1000));
    const { url } = await newAuthorization();
    const browser = new Browser();
    const html = await signInPage(browser, url);
    const res = await browser.post("/authorize", [...Object.entries(formFields(html, "login_link")), ["code", code]]);
    expect(res.status).toBe(401);
  });

  it("opening the link names the account, and confirming returns to the authorization in progress", async () => {
    const user = await createUser();
    const { url } = await newAuthorization();
    const browser = new Browser();
    await signInPage(browser, url); // the authorization in progress, remembered by this browser
    const code = await createLoginCode(user);
    const page = await browser.get(`/authorize/link?code=${encodeURIComponent(code)}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`signs this browser in as <strong>${user.name}</strong>`);
    const res = await browser.post("/authorize/link", Object.entries(formFields(html, code)));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(new URL(url).pathname + new URL(url).search);
    expect((await browser.get(res.headers.get("location")!)).status).toBe(200); // the consent page
    // Single use: the link is dead now.
    expect((await new Browser().get(`/authorize/link?code=${encodeURIComponent(code)}`)).status).toBe(400);
  });
});

describe("consent", () => {
  it("shows the client, the redirect host with a localhost warning, the resource and the scopes; framing is forbidden", async () => {
    const user = await createUser();
    const clientId = await registerClient([LOOPBACK_REDIRECT], `<script>alert("x")</script> Evil & Co`);
    const { url } = await newAuthorization({ clientId, scope: "tasks:read tasks:write" });
    const browser = new Browser();
    const signedIn = await signIn(browser, url, user);
    const res = await browser.get(signedIn.headers.get("location")!);
    const html = await res.text();
    expect(html).not.toContain("<script>");
    expect(html).toContain("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; Evil &#38; Co");
    expect(html).toContain("registered itself: its name is not verified");
    expect(html).toContain("Access will be sent to <strong>127.0.0.1</strong>");
    expect(html).toContain("an app on this computer");
    expect(html).toContain(`<code>${ORIGIN}/mcp/tasks</code>`);
    expect(offeredScopes(html)).toEqual(["tasks:read", "tasks:write"]);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
    // A browser posts a page's forms with `Origin: null` under no-referrer, which the CSRF check refuses.
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("a native app's private-use redirect (Cursor's) gets a warning, is allowed as the form's target, and receives the code", async () => {
    const user = await createUser();
    const redirectUri = "cursor://anysphere.cursor-mcp/oauth/callback";
    // What Cursor registers: its app's scheme beside its web and loopback callbacks.
    const clientId = await registerClient(
      [redirectUri, "https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"],
      "Cursor",
    );
    const { url } = await newAuthorization({ clientId, redirectUri });
    const browser = new Browser();
    const consent = await browser.get((await signIn(browser, url, user)).headers.get("location")!);
    // The answer to the consent form redirects to cursor://…, which the page's form-action must allow.
    expect(consent.headers.get("content-security-policy")).toContain("form-action 'self' cursor:;");
    const html = await consent.text();
    expect(html).toContain("Access will be sent to an app on this computer");
    const answer = await browser.post("/authorize", [
      ...Object.entries(formFields(html, "consent")),
      ["decision", "approve"],
      ["scope", "tasks:read"],
    ]);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toMatch(/^cursor:\/\/anysphere\.cursor-mcp\/oauth\/callback\?code=/);
  });

  it("a metadata-document client shows its domain", async () => {
    const user = await createUser();
    const clientId = await publishClientMetadata(`consent/${crypto.randomUUID()}.json`, {
      client_name: "Verified app",
      redirect_uris: [LOOPBACK_REDIRECT],
      token_endpoint_auth_method: "none",
    });
    const { url } = await newAuthorization({ clientId });
    const browser = new Browser();
    const signedIn = await signIn(browser, url, user);
    const html = await (await browser.get(signedIn.headers.get("location")!)).text();
    expect(html).toContain("Published by <strong>client-metadata.test</strong>");
  });

  it("deny sends the client access_denied with its state and iss", async () => {
    const user = await createUser();
    const { url } = await newAuthorization();
    const { callback } = await authorizeInBrowser(new Browser(), url, user, { decision: "deny" });
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe("state-1");
    expect(callback.searchParams.get("iss")).toBe(ORIGIN);
  });

  it("a consent post from another browser is refused here, without a redirect (the library's binding cookie)", async () => {
    const user = await createUser();
    const { url } = await newAuthorization();
    const browser = new Browser();
    const signedIn = await signIn(browser, url, user);
    const html = await (await browser.get(signedIn.headers.get("location")!)).text();
    const handle = formFields(html, "consent");
    const attacker = new Browser();
    for (const [name, value] of browser.jar.cookies) if (name.startsWith("__Host-mcpe-session")) attacker.jar.cookies.set(name, value);
    const res = await attacker.post("/authorize", [...Object.entries(handle), ["decision", "approve"], ["scope", "tasks:read"]]);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("unticked scopes are not granted, and the user cannot add scopes the client did not ask for", async () => {
    const user = await createUser();
    const { url } = await newAuthorization({ scope: "tasks:read tasks:write" });
    const browser = new Browser();
    const signedIn = await signIn(browser, url, user);
    const html = await (await browser.get(signedIn.headers.get("location")!)).text();
    const res = await browser.post("/authorize", [
      ...Object.entries(formFields(html, "consent")),
      ["decision", "approve"],
      ["scope", "tasks:read"],
      ["scope", "gateway:admin"],
    ]);
    expect(res.status).toBe(302);
    const row = await env.DB.prepare("SELECT scopes FROM oauth_consents WHERE user_id = ?").bind(user.id).first<{ scopes: string }>();
    expect(JSON.parse(row!.scopes)).toEqual(["tasks:read"]);
  });

  it("is remembered per user, client, redirect URI and resource — a different redirect URI or more scopes asks again", async () => {
    const user = await createUser();
    const second = "http://127.0.0.1:44555/other-callback";
    const clientId = await registerClient([LOOPBACK_REDIRECT, second]);
    const browser = new Browser();
    const first = await authorizeInBrowser(browser, (await newAuthorization({ clientId })).url, user);
    expect(first.consentShown).toBe(true);
    const same = await authorizeInBrowser(browser, (await newAuthorization({ clientId })).url, user);
    expect(same.consentShown, "same client, redirect URI, resource and scopes: remembered").toBe(false);
    expect(same.callback.searchParams.get("code")).toBeTruthy();
    const otherRedirect = await authorizeInBrowser(browser, (await newAuthorization({ clientId, redirectUri: second })).url, user);
    expect(otherRedirect.consentShown, "another redirect URI of the same client: asked again").toBe(true);
    const more = await authorizeInBrowser(browser, (await newAuthorization({ clientId, scope: "tasks:read tasks:write" })).url, user);
    expect(more.consentShown, "more scopes: asked again").toBe(true);
    const otherUser = await createUser();
    const fresh = await authorizeInBrowser(new Browser(), (await newAuthorization({ clientId })).url, otherUser);
    expect(fresh.consentShown, "another user: asked").toBe(true);
  });
});

describe("errors before the client is validated are shown here, never redirected", () => {
  it.each([
    ["an unknown client", (clientId: string) => authorizeUrl({ clientId: `${clientId}-unknown`, challenge: "x".repeat(43) })],
    [
      "a redirect URI the client did not register",
      (clientId: string) => authorizeUrl({ clientId, challenge: "x".repeat(43), redirectUri: "https://evil.example/cb" }),
    ],
    ["a repeated client_id", (clientId: string) => `${authorizeUrl({ clientId, challenge: "x".repeat(43) })}&client_id=${clientId}`],
    [
      "a metadata-document client on a private IP",
      () => authorizeUrl({ clientId: "https://10.0.0.1/client.json", challenge: "x".repeat(43) }),
    ],
    [
      "a metadata-document client over http",
      () => authorizeUrl({ clientId: "http://client-metadata.test/client.json", challenge: "x".repeat(43) }),
    ],
    [
      "an oversized request",
      (clientId: string) => authorizeUrl({ clientId, challenge: "x".repeat(43), scope: "tasks:read ".repeat(1000) }),
    ],
  ])("%s", async (_case, build) => {
    const clientId = await registerClient();
    const res = await workerFetch(build(clientId), { redirect: "manual" });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-type")).toContain("text/html");
  });

  it("after validation, an unknown resource goes back to the client as invalid_target", async () => {
    const clientId = await registerClient();
    const res = await workerFetch(authorizeUrl({ clientId, challenge: "x".repeat(43), resource: "https://other.example/mcp" }), {
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_target");
    expect(location.searchParams.get("iss")).toBe(ORIGIN);
  });
});

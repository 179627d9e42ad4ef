/**
 * The console is a first-party client (issue 22, decision 0055): the Worker registers the
 * console's OAuth client itself and names it on the consent page as this server's own app, with
 * no "registered itself" warning — and still asks like for any client (the consent page shown,
 * gateway:admin unticked). A dynamically registered client calling itself "mcp-edge console" stays
 * unverified, whatever redirect URI it gives.
 */
import { describe, expect, it } from "vitest";
import { workerFetch } from "../helpers/mcp";
import { authorizeInBrowser, Browser, formFields, ORIGIN, pkce, registerClient, tickedScopes, tokenRequest } from "../helpers/oauth";
import { createUser, type TestUser } from "../helpers/users";

async function consoleClient(): Promise<{ client_id: string; redirect_uri: string }> {
  const res = await workerFetch(`${ORIGIN}/oauth/console-client`);
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return res.json();
}

/** The console's authorization request, as public/js/oauth.js builds it: the root resource, no scope. */
function consoleAuthorization(clientId: string, redirectUri: string, challenge: string): string {
  const url = new URL("/authorize", ORIGIN);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "console-state",
    resource: ORIGIN,
  }).toString();
  return url.href;
}

/** The consent page a newly signed-in user sees for `url`. */
async function consentOf(url: string, user: TestUser): Promise<string> {
  const browser = new Browser();
  const page = await browser.get(url);
  const signIn = await browser.post("/authorize", [...Object.entries(formFields(await page.text(), "api_token")), ["token", user.token]]);
  expect(signIn.status).toBe(303);
  const consent = await browser.get(signIn.headers.get("location")!);
  expect(consent.status).toBe(200);
  return consent.text();
}

describe("the console's own client", () => {
  it("is registered by the Worker once, with the console at this origin's root as its one redirect URI", async () => {
    const first = await consoleClient();
    const again = await consoleClient();
    expect(first.redirect_uri).toBe(`${ORIGIN}/`);
    expect(again.client_id).toBe(first.client_id);
  });

  it("is named on its consent page as this server's own app, never 'registered itself', and still asks", async () => {
    const { client_id, redirect_uri } = await consoleClient();
    const { challenge } = await pkce();
    const html = await consentOf(consoleAuthorization(client_id, redirect_uri, challenge), await createUser());
    expect(html).toContain("Allow mcp-edge console to use your account?");
    expect(html).toContain("this server's own app, registered by mcp-edge itself");
    expect(html).not.toContain("registered itself");
    expect(html).not.toContain("an app on this computer");
    expect(html).toContain('value="gateway:admin"');
    expect(tickedScopes(html)).not.toContain("gateway:admin");
    expect(tickedScopes(html)).toContain("tasks:write");
  });

  it("signs in and redeems its code like any public client (PKCE)", async () => {
    const user = await createUser();
    const { client_id, redirect_uri } = await consoleClient();
    const { verifier, challenge } = await pkce();
    const url = consoleAuthorization(client_id, redirect_uri, challenge);
    const { callback, consentShown } = await authorizeInBrowser(new Browser(), url, user);
    expect(consentShown).toBe(true);
    expect(callback.origin + callback.pathname).toBe(`${ORIGIN}/`);
    const code = callback.searchParams.get("code")!;
    const res = await tokenRequest({ grant_type: "authorization_code", code, client_id, redirect_uri, code_verifier: verifier });
    expect(res.status).toBe(200);
    expect((await res.json<{ scope: string }>()).scope.split(" ")).toContain("tasks:write");
  });
});

describe("a registered client calling itself 'mcp-edge console'", () => {
  it.each([
    ["with a loopback redirect", "http://127.0.0.1:33418/callback"],
    ["with the console's own redirect URI", `${ORIGIN}/`],
  ])("%s is shown as unverified", async (_case, redirectUri) => {
    const clientId = await registerClient([redirectUri], "mcp-edge console");
    const { challenge } = await pkce();
    const html = await consentOf(consoleAuthorization(clientId, redirectUri, challenge), await createUser());
    expect(html).toContain("This app registered itself: its name is not verified.");
    expect(html).not.toContain("this server's own app");
  });
});

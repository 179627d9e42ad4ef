/**
 * Scopes on the consent page (issue 21, finding 7): a resource is offered only the scopes it serves,
 * `gateway:admin` is never ticked in advance — whatever was asked — and a request that names no
 * resource gets every scope but that one ticked. What stays ticked is what is granted; remembered
 * consent grants no more than the user approved.
 */
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../workers/auth/scopes";
import { workerFetch } from "../helpers/mcp";
import {
  authorizeInBrowser,
  authorizeUrl,
  Browser,
  formFields,
  type IssuedTokens,
  LOOPBACK_REDIRECT,
  offeredScopes,
  ORIGIN,
  pkce,
  registerClient,
  tickedScopes,
  tokenRequest,
} from "../helpers/oauth";
import { createUser, type TestUser } from "../helpers/users";

const EVERY_SCOPE_BUT_ADMIN = SCOPES.filter((scope) => scope !== "gateway:admin");

interface Consent {
  browser: Browser;
  html: string;
  clientId: string;
  verifier: string;
}

/** Signs `user` in for a new client's request and returns its consent page. */
type Asked = { scope?: string; resource?: string | null };

async function consentFor(user: TestUser, params: Asked, clientId?: string, browser = new Browser()): Promise<Consent> {
  const client = clientId ?? (await registerClient());
  const { verifier, challenge } = await pkce();
  let res = await browser.get(authorizeUrl({ clientId: client, challenge, ...params }));
  const html = await res.text();
  if (html.includes('value="sign_in"')) {
    res = await browser.post("/authorize", [...Object.entries(formFields(html, "api_token")), ["token", user.token]]);
    res = await browser.get(res.headers.get("location")!);
  }
  expect(res.status).toBe(200);
  return { browser, html: await res.text(), clientId: client, verifier };
}

/** Posts Allow with `scopes` ticked and redeems the code. */
async function allow(consent: Consent, scopes: string[]): Promise<IssuedTokens> {
  const ticked = scopes.map((scope): [string, string] => ["scope", scope]);
  const fields: [string, string][] = [...Object.entries(formFields(consent.html, "consent")), ["decision", "approve"], ...ticked];
  const answer = await consent.browser.post("/authorize", fields);
  expect(answer.status).toBe(302);
  return redeem(new URL(answer.headers.get("location")!), consent.clientId, consent.verifier);
}

async function redeem(callback: URL, clientId: string, verifier: string): Promise<IssuedTokens> {
  const code = callback.searchParams.get("code");
  expect(code, `a code (${callback.search})`).toBeTruthy();
  const res = await tokenRequest({
    grant_type: "authorization_code",
    code: code!,
    client_id: clientId,
    redirect_uri: LOOPBACK_REDIRECT,
    code_verifier: verifier,
  });
  expect(res.status).toBe(200);
  return res.json<IssuedTokens>();
}

function granted(tokens: IssuedTokens): string[] {
  return tokens.scope.split(" ").sort();
}

describe("a request with no resource and no scope", () => {
  it("is offered every scope with gateway:admin unticked; clicking Allow grants no gateway:admin", async () => {
    const consent = await consentFor(await createUser(), { resource: null });
    expect(offeredScopes(consent.html)).toEqual([...SCOPES]);
    expect(tickedScopes(consent.html)).toEqual(EVERY_SCOPE_BUT_ADMIN);
    expect(consent.html).toContain("<code>gateway:admin</code> is not ticked");
    const tokens = await allow(consent, tickedScopes(consent.html));
    expect(tokens.resource).toBe(ORIGIN);
    expect(granted(tokens)).toEqual([...EVERY_SCOPE_BUT_ADMIN].sort());
  });

  it("remembered consent grants what was approved then: no gateway:admin unless it was ticked", async () => {
    const user = await createUser();
    const browser = new Browser();
    const consent = await consentFor(user, { resource: null }, undefined, browser);
    await allow(consent, tickedScopes(consent.html));
    const { verifier, challenge } = await pkce();
    const again = await authorizeInBrowser(browser, authorizeUrl({ clientId: consent.clientId, challenge, resource: null }), user);
    expect(again.consentShown, "the same request again: remembered").toBe(false);
    expect(granted(await redeem(again.callback, consent.clientId, verifier))).toEqual([...EVERY_SCOPE_BUT_ADMIN].sort());
  });
});

describe("gateway:admin", () => {
  it("is not ticked even when asked for; it is granted only when the user ticks it", async () => {
    const user = await createUser();
    const asked = { scope: "gateway:read gateway:admin", resource: `${ORIGIN}/mcp` };
    const untouched = await consentFor(user, asked);
    expect(offeredScopes(untouched.html)).toEqual(["gateway:read", "gateway:admin"]);
    expect(tickedScopes(untouched.html)).toEqual(["gateway:read"]);
    expect(granted(await allow(untouched, tickedScopes(untouched.html)))).toEqual(["gateway:read"]);

    const onPurpose = await consentFor(user, asked);
    expect(granted(await allow(onPurpose, ["gateway:read", "gateway:admin"]))).toEqual(["gateway:admin", "gateway:read"]);
  });
});

describe("a resource is offered only the scopes it serves", () => {
  it.each([
    ["/mcp/tasks", "tasks:read rag:write gateway:admin chat", ["tasks:read"]],
    ["/mcp/rag", "rag:read rag:write tasks:write", ["rag:read", "rag:write"]],
    ["/mcp/thinking", "thinking tasks:write", ["thinking"]],
    ["/mcp", "tasks:write chat gateway:read", ["tasks:write", "gateway:read"]],
  ])("%s asked for %j offers %j, and a form adding the others grants none of them", async (path, scope, served) => {
    const consent = await consentFor(await createUser(), { scope, resource: `${ORIGIN}${path}` });
    expect(offeredScopes(consent.html)).toEqual(served);
    const tokens = await allow(consent, scope.split(" "));
    expect(tokens.resource).toBe(`${ORIGIN}${path}`);
    expect(granted(tokens)).toEqual([...served].sort());
  });

  it("a request asking only for scopes its resource does not serve goes back to the client as invalid_scope", async () => {
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const url = authorizeUrl({ clientId, challenge, scope: "tasks:read tasks:write", resource: `${ORIGIN}/mcp/rag` });
    const res = await workerFetch(url, { redirect: "manual" });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(LOOPBACK_REDIRECT);
    expect(location.searchParams.get("error")).toBe("invalid_scope");
    expect(location.searchParams.get("error_description")).toBe(
      "mcp-edge RAG MCP server serves none of the scopes asked for (tasks:read tasks:write); it serves rag:read rag:write",
    );
    expect(location.searchParams.get("iss")).toBe(ORIGIN);
    expect(location.searchParams.has("code")).toBe(false);
  });
});

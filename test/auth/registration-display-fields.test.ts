/**
 * A registration's display-only URLs (issue 22): `client_uri`, `logo_uri`, `tos_uri`, `policy_uri`
 * that are not a usable https URL are dropped, and the registration goes through — mcp-use 1.x
 * registers `client_uri: ""` and could not sign in at all. Nothing of them is shown on the consent
 * page. What decides where codes and tokens go stays strict.
 */
import { describe, expect, it } from "vitest";
import { workerFetch } from "../helpers/mcp";
import { authorizeUrl, Browser, formFields, LOOPBACK_REDIRECT, ORIGIN, pkce } from "../helpers/oauth";
import { createUser } from "../helpers/users";

const LONG_URL = `https://example.com/${"a".repeat(3000)}`;

function register(metadata: Record<string, unknown>): Promise<Response> {
  return workerFetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": `192.0.2.${crypto.randomUUID()}` },
    body: JSON.stringify({
      client_name: "Display test",
      redirect_uris: [LOOPBACK_REDIRECT],
      token_endpoint_auth_method: "none",
      ...metadata,
    }),
  });
}

/** The consent page of `clientId` for a newly signed-in user. */
async function consentHtml(clientId: string): Promise<string> {
  const user = await createUser();
  const browser = new Browser();
  const { challenge } = await pkce();
  const page = await browser.get(authorizeUrl({ clientId, challenge, scope: "tasks:read" }));
  const signIn = await browser.post("/authorize", [...Object.entries(formFields(await page.text(), "api_token")), ["token", user.token]]);
  const consent = await browser.get(signIn.headers.get("location")!);
  expect(consent.status).toBe(200);
  return consent.text();
}

describe("a display-only URL that is not usable", () => {
  it.each([
    ["empty (what mcp-use 1.x sends)", ""],
    ["a javascript: URL", "javascript:alert(1)"],
    ["plain http", "http://example.com"],
    ["3,000 characters long", LONG_URL],
    ["not a URL", "mcp-use"],
    ["with credentials", "https://user:pass@example.com/"],
  ])("%s is dropped: the client is registered and its consent page links nowhere", async (_case, uri) => {
    const res = await register({ client_uri: uri, logo_uri: uri, tos_uri: uri, policy_uri: uri, "client_uri#fr": uri });
    expect(res.status, await res.clone().text()).toBe(201);
    const body = await res.json<Record<string, unknown>>();
    for (const field of ["client_uri", "logo_uri", "tos_uri", "policy_uri", "client_uri#fr"]) expect(body[field], field).toBeUndefined();
    expect(body["client_name"]).toBe("Display test");
    const html = await consentHtml(String(body["client_id"]));
    expect(html).not.toContain("<a ");
    if (uri !== "") expect(html).not.toContain(uri.slice(0, 30));
  });

  it("a usable https URL is registered as given, and still not shown (it is the client's own claim)", async () => {
    const res = await register({ client_uri: "https://mcp-use.com", logo_uri: "https://mcp-use.com/logo.png" });
    expect(res.status).toBe(201);
    const body = await res.json<Record<string, unknown>>();
    expect(body["client_uri"]).toBe("https://mcp-use.com");
    expect(body["logo_uri"]).toBe("https://mcp-use.com/logo.png");
    const html = await consentHtml(String(body["client_id"]));
    expect(html).not.toContain("<a ");
    expect(html).not.toContain("mcp-use.com");
  });
});

describe("what decides where codes and tokens go stays strict", () => {
  it.each([
    ["an empty redirect URI", { redirect_uris: [""] }],
    ["a javascript: redirect URI", { redirect_uris: ["javascript:alert(1)"] }],
    ["no redirect URI", { redirect_uris: [] }],
    ["an unknown token endpoint auth method", { token_endpoint_auth_method: "bogus" }],
    ["the password grant", { grant_types: ["password"] }],
    ["the implicit response type", { response_types: ["token"] }],
  ])("%s is refused", async (_case, metadata) => {
    const res = await register({ client_uri: "", ...metadata });
    expect(res.status).toBe(400);
    expect((await res.json<{ error: string }>()).error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
  });
});

/**
 * Private-use redirect URIs (issue 21, finding 7; decision 0053): a native app's scheme must be a
 * reverse-domain name (RFC 8252 §7.1, `com.example.app:/cb`); a web browser's handler scheme
 * (`microsoft-edge:https://…`), which would open the code in a web page, is refused at registration
 * and at /authorize — also for clients registered before the rule — naming the rule.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { oauthHelpers } from "../helpers/isolate";
import { workerFetch } from "../helpers/mcp";
import { authorizeInBrowser, authorizeUrl, Browser, LOOPBACK_REDIRECT, ORIGIN, pkce, publishClientMetadata } from "../helpers/oauth";
import { createUser } from "../helpers/users";

const RULE = "named after a domain its publisher controls, in reverse order (RFC 8252 §7.1: com.example.app:/callback)";

function register(redirectUris: string[]): Promise<Response> {
  return workerFetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": `192.0.2.${crypto.randomUUID()}` },
    body: JSON.stringify({ client_name: "Native app", redirect_uris: redirectUris, token_endpoint_auth_method: "none" }),
  });
}

async function authorizePage(clientId: string, redirectUri: string): Promise<Response> {
  const { challenge } = await pkce();
  return workerFetch(authorizeUrl({ clientId, challenge, redirectUri }), { redirect: "manual" });
}

describe("registration", () => {
  it.each([
    ["microsoft-edge:https://evil.example/cb", "microsoft-edge: is a web browser's scheme"],
    ["googlechrome://evil.example/cb", "googlechrome: is a web browser's scheme"],
    ["firefox:https://evil.example/cb", "firefox: is a web browser's scheme"],
    ["x-safari-https://evil.example/cb", "x-safari-https: is a web browser's scheme"],
    ["myapp:/callback", "myapp: is not named after a domain in reverse order"],
    ["ms-settings:privacy", "ms-settings: is not named after a domain in reverse order"],
  ])("refuses %s beside a loopback callback, naming the rule", async (uri, why) => {
    const res = await register([LOOPBACK_REDIRECT, uri]);
    expect(res.status).toBe(400);
    const body = await res.json<{ error: string; error_description: string }>();
    expect(body.error).toBe("invalid_redirect_uri");
    expect(body.error_description).toContain(`The redirect URI ${uri} is refused: ${why}`);
    expect(body.error_description).toContain(RULE);
  });

  it("a reverse-domain scheme is registered, and receives the code", async () => {
    const redirectUri = "com.example.notes:/oauth/callback";
    const res = await register([redirectUri]);
    expect(res.status).toBe(201);
    const { client_id: clientId } = await res.json<{ client_id: string }>();
    const { challenge } = await pkce();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge, redirectUri }), await createUser());
    expect(callback.href).toMatch(/^com\.example\.notes:\/oauth\/callback\?code=/);
  });
});

describe("/authorize", () => {
  it("refuses a browser's scheme of a client registered before the rule, on the page (never redirected there)", async () => {
    const redirectUri = "microsoft-edge:https://evil.example/cb";
    // Registered as an operator's createClient() does, which no registration rule sees.
    const client = await oauthHelpers(ORIGIN, env).createClient({
      clientName: "Old app",
      redirectUris: [redirectUri, LOOPBACK_REDIRECT],
      tokenEndpointAuthMethod: "none",
    });
    const res = await authorizePage(client.clientId, redirectUri);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    const html = await res.text();
    expect(html).toContain("microsoft-edge: is a web browser&#39;s scheme");
    expect(html).toContain("RFC 8252 §7.1");
    // Its loopback callback still works.
    expect((await authorizePage(client.clientId, LOOPBACK_REDIRECT)).status).toBe(200);
  });

  it("refuses a single-label scheme a metadata document lists", async () => {
    const redirectUri = "notes:/callback";
    const document = { client_name: "Doc app", redirect_uris: [LOOPBACK_REDIRECT, redirectUri], token_endpoint_auth_method: "none" };
    const clientId = await publishClientMetadata(`schemes/${crypto.randomUUID()}.json`, document);
    const res = await authorizePage(clientId, redirectUri);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("notes: is not named after a domain in reverse order");
  });
});

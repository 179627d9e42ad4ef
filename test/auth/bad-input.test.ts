/**
 * Bad input at every OAuth endpoint gets the error the RFCs name, never a 500, a stack trace or a
 * partial grant: token and revocation, registration (and its rate limit), metadata documents.
 */
import { describe, expect, it } from "vitest";
import { guardOAuth } from "../../workers/auth/oauth-errors";
import { workerFetch } from "../helpers/mcp";
import { authorizeUrl, LOOPBACK_REDIRECT, ORIGIN, pkce, publishClientMetadata, registerClient, tokenRequest } from "../helpers/oauth";

async function expectOAuthError(res: Response, status: number, code: string | string[]): Promise<void> {
  expect(res.status).toBe(status);
  const text = await res.text();
  expect(text).not.toMatch(/\bat .*\.(js|ts):\d+/); // no stack trace
  const body = JSON.parse(text) as { error: string };
  expect(Array.isArray(code) ? code : [code]).toContain(body.error);
}

function register(body: string, ip = crypto.randomUUID(), contentType = "application/json"): Promise<Response> {
  return workerFetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "content-type": contentType, "cf-connecting-ip": ip },
    body,
  });
}

describe("token endpoint", () => {
  it.each([
    ["no grant_type", { code: "1:2:3" }, 400, ["invalid_request", "invalid_client", "unsupported_grant_type"]],
    [
      "an unsupported grant_type",
      { grant_type: "password", username: "a", password: "b" },
      400,
      ["unsupported_grant_type", "invalid_client", "invalid_request"],
    ],
    [
      "an unknown client",
      {
        grant_type: "authorization_code",
        code: "1:2:3",
        client_id: "nobody",
        code_verifier: "x".repeat(43),
        redirect_uri: LOOPBACK_REDIRECT,
      },
      401,
      "invalid_client",
    ],
    [
      "a malformed code",
      { grant_type: "authorization_code", code: "garbage", code_verifier: "x".repeat(43), redirect_uri: LOOPBACK_REDIRECT },
      400,
      ["invalid_grant", "invalid_client", "invalid_request"],
    ],
    [
      "a malformed refresh token",
      { grant_type: "refresh_token", refresh_token: "garbage" },
      400,
      ["invalid_grant", "invalid_client", "invalid_request"],
    ],
    [
      "a metadata-document client_id on a loopback address",
      { grant_type: "refresh_token", refresh_token: "1:2:3", client_id: "https://127.0.0.1/client.json" },
      401,
      "invalid_client",
    ],
    [
      "a metadata-document client_id on the cloud metadata host",
      { grant_type: "refresh_token", refresh_token: "1:2:3", client_id: "https://169.254.169.254/latest" },
      401,
      "invalid_client",
    ],
  ])("answers %s with an OAuth error", async (_case, fields, status, code) => {
    const withClient = "client_id" in fields ? fields : { ...fields, client_id: await registerClient() };
    await expectOAuthError(await tokenRequest(withClient), status, code);
  });

  it("refuses a repeated parameter", async () => {
    const clientId = await registerClient();
    const res = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=refresh_token&refresh_token=1:2:3&refresh_token=4:5:6&client_id=${clientId}`,
    });
    await expectOAuthError(res, 400, ["invalid_request", "invalid_grant"]);
  });

  it("refuses an oversized body and the wrong content type", async () => {
    await expectOAuthError(
      await workerFetch(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=x&pad=${"a".repeat(20_000)}`,
      }),
      413,
      "invalid_request",
    );
    await expectOAuthError(
      await workerFetch(`${ORIGIN}/oauth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
      400,
      "invalid_request",
    );
    await expectOAuthError(await workerFetch(`${ORIGIN}/oauth/token`), 405, "invalid_request");
  });

  it("a code issued for one client cannot be redeemed by another (no partial grant)", async () => {
    const clientA = await registerClient();
    const clientB = await registerClient();
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code: "1:nogrant:x",
      client_id: clientB,
      redirect_uri: LOOPBACK_REDIRECT,
      code_verifier: "x".repeat(43),
    });
    expect(clientA).not.toBe(clientB);
    await expectOAuthError(res, 400, "invalid_grant");
  });
});

describe("dynamic client registration", () => {
  it.each([
    ["invalid JSON", "{not json"],
    ["no redirect URIs", JSON.stringify({ client_name: "x", token_endpoint_auth_method: "none" })],
    ["a javascript: redirect URI", JSON.stringify({ redirect_uris: ["javascript:alert(1)"], token_endpoint_auth_method: "none" })],
    ["a remote http redirect URI only", JSON.stringify({ redirect_uris: ["http://evil.example/cb"], token_endpoint_auth_method: "none" })],
    ["redirect URIs that are not a list", JSON.stringify({ redirect_uris: "https://a.example/cb" })],
  ])("refuses %s", async (_case, body) => {
    await expectOAuthError(await register(body), 400, ["invalid_client_metadata", "invalid_redirect_uri", "invalid_request"]);
  });

  it("refuses an oversized registration", async () => {
    await expectOAuthError(
      await register(JSON.stringify({ redirect_uris: [LOOPBACK_REDIRECT], client_name: "x".repeat(20_000) })),
      413,
      "invalid_client_metadata",
    );
  });

  it("is rate-limited per caller address: the 11th registration in a minute gets 429", async () => {
    const ip = `203.0.113.${Math.floor(Math.random() * 250)}`;
    const body = JSON.stringify({ client_name: "burst", redirect_uris: [LOOPBACK_REDIRECT], token_endpoint_auth_method: "none" });
    for (let i = 0; i < 10; i++) expect((await register(body, ip)).status, `registration ${i + 1}`).toBe(201);
    const limited = await register(body, ip);
    expect(limited.headers.get("retry-after")).toBe("60");
    await expectOAuthError(limited, 429, "temporarily_unavailable");
    // Another address is not affected.
    expect((await register(body)).status).toBe(201);
  });
});

describe("the SSRF pre-check of a metadata-document client_id", () => {
  // Our own refusal (not the library's "could not be verified"): the reason comes from the
  // gateway's URL rules (lib/url-safety.ts), whose wording belongs to that module.
  const OURS = /cannot be fetched: client_id/;
  it.each([
    ["https://10.0.0.1/client.json", OURS],
    ["https://127.0.0.1/client.json", OURS],
    ["https://169.254.169.254/latest/meta-data", OURS],
    ["https://metadata.google.internal/client.json", OURS],
    ["https://printer.local/client.json", OURS],
    ["https://localhost./client.json", OURS],
    ["http://client-metadata.test/client.json", OURS],
  ])("refuses %s before anything is fetched, naming why", async (clientId, reason) => {
    const { challenge } = await pkce();
    const page = await workerFetch(authorizeUrl({ clientId, challenge }), { redirect: "manual" });
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    expect(await page.text()).toMatch(reason);
    const token = await tokenRequest({ grant_type: "refresh_token", refresh_token: "1:2:3", client_id: clientId });
    expect(token.status).toBe(401);
    const body = await token.json<{ error: string; error_description: string }>();
    expect(body.error).toBe("invalid_client");
    expect(body.error_description).toMatch(reason);
  });
});

describe("client metadata documents", () => {
  async function authorizeWith(clientId: string): Promise<Response> {
    const { challenge } = await pkce();
    return workerFetch(authorizeUrl({ clientId, challenge }), { redirect: "manual" });
  }

  it.each([
    [
      "a document whose client_id is another URL",
      (url: string) => JSON.stringify({ client_id: `${url}-other`, client_name: "x", redirect_uris: [LOOPBACK_REDIRECT] }),
    ],
    ["a document that is not JSON", () => "<html>hello</html>"],
    ["a document without redirect URIs", (url: string) => JSON.stringify({ client_id: url, client_name: "x" })],
    [
      "a document carrying a client secret",
      (url: string) => JSON.stringify({ client_id: url, client_name: "x", redirect_uris: [LOOPBACK_REDIRECT], client_secret: "s" }),
    ],
    [
      "a document over the size limit",
      (url: string) => JSON.stringify({ client_id: url, client_name: "x".repeat(6000), redirect_uris: [LOOPBACK_REDIRECT] }),
    ],
  ])("%s is shown as an unverifiable client, never redirected", async (_case, document) => {
    const path = `bad/${crypto.randomUUID()}.json`;
    const url = `https://client-metadata.test/${path}`;
    await publishClientMetadata(path, document(url));
    const res = await authorizeWith(url);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("could not be verified");
  });

  it("a document that answers 404 is shown as unverifiable too", async () => {
    const res = await authorizeWith(`https://client-metadata.test/missing/${crypto.randomUUID()}.json`);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("a redirect URI the document does not list is refused here", async () => {
    const path = `ok/${crypto.randomUUID()}.json`;
    const clientId = await publishClientMetadata(path, { client_name: "x", redirect_uris: ["http://127.0.0.1:1/other"] });
    const res = await authorizeWith(clientId);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("the guard around the library's endpoints", () => {
  it("turns anything thrown into invalid_request, never a 500 or a stack trace", async () => {
    const res = await guardOAuth("test", () => Promise.reject(new TypeError("library bug at oauth-provider.js:123")));
    await expectOAuthError(res, 400, "invalid_request");
  });
});

describe("discovery endpoints", () => {
  it("answer methods they do not serve without a 500", async () => {
    const metadata = await workerFetch(`${ORIGIN}/.well-known/oauth-authorization-server`, { method: "POST", body: "{}" });
    expect(metadata.status).toBe(405);
    const resource = await workerFetch(`${ORIGIN}/.well-known/oauth-protected-resource/mcp`, { method: "POST", body: "{}" });
    expect(resource.status).toBeGreaterThanOrEqual(400);
    expect(resource.status).toBeLessThan(500);
  });
});

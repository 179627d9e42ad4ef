/**
 * How the authorization server fetches a Client ID Metadata Document (decision 0052): at the
 * document's own URL only (a redirect is refused, never followed, so a public document cannot point
 * the server at a loopback or private address), as `application/json` only, at most 5 KiB, once per
 * authorization, and at most CIMD_FETCHES_PER_MINUTE fetches a minute for one caller address.
 * The loopback address a redirect names here is the document server's own, which counts its hits.
 */
import { CimdFetchError } from "@cloudflare/workers-oauth-provider";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { oauthHelpers } from "../helpers/isolate";
import { CIMD_FETCHES_PER_MINUTE } from "../../workers/auth/client-id-guard";
import { workerFetch } from "../helpers/mcp";
import {
  authorizeInBrowser,
  authorizeUrl,
  Browser,
  documentHits,
  LOOPBACK_REDIRECT,
  ORIGIN,
  pkce,
  publishClientMetadata,
  tokenRequest,
} from "../helpers/oauth";
import { upstreams } from "../helpers/upstreams";
import { createUser } from "../helpers/users";

/** An address of its own per test, so no other test's fetches count against it. */
function callerIp(): string {
  return `198.51.100.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`;
}

async function authorizePage(clientId: string, ip = callerIp()): Promise<Response> {
  const { challenge } = await pkce();
  return workerFetch(authorizeUrl({ clientId, challenge }), { redirect: "manual", headers: { "cf-connecting-ip": ip } });
}

async function tokenRefusal(clientId: string): Promise<{ status: number; error: string; description: string }> {
  const res = await workerFetch(`${ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": callerIp() },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "1:2:3", client_id: clientId }).toString(),
  });
  const body = await res.json<{ error: string; error_description: string }>();
  return { status: res.status, error: body.error, description: body.error_description };
}

const PUBLIC_CLIENT = { redirect_uris: [LOOPBACK_REDIRECT], token_endpoint_auth_method: "none" };

function validDocument(clientId: string): string {
  return JSON.stringify({ client_id: clientId, ...PUBLIC_CLIENT, client_name: "Document app" });
}

/**
 * A document that answers 302 to the document server's loopback address, where a valid document
 * for the same client_id waits: following the redirect would accept the client.
 */
async function redirectingDocument(): Promise<{ clientId: string; targetPath: string }> {
  const id = crypto.randomUUID();
  const clientId = `https://client-metadata.test/redirecting/${id}.json`;
  const targetPath = `loopback-target/${id}.json`;
  await publishClientMetadata(targetPath, validDocument(clientId));
  await publishClientMetadata(`redirecting/${id}.json`, "", 302, { location: `${upstreams().metadata_documents}/${targetPath}` });
  return { clientId, targetPath };
}

describe("a document that redirects", () => {
  it("is refused at /authorize and the token endpoint, naming the redirect; the loopback address is never fetched", async () => {
    const { clientId, targetPath } = await redirectingDocument();
    const page = await authorizePage(clientId);
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    const html = await page.text();
    expect(html).toContain("answered with a redirect (HTTP 302)");
    expect(html).toContain("redirects are not followed");

    const token = await tokenRefusal(clientId);
    expect(token.status).toBe(401);
    expect(token.error).toBe("invalid_client");
    expect(token.description).toContain("answered with a redirect (HTTP 302)");

    expect(await documentHits(targetPath)).toBe(0);
  });

  it("is refused by the library's own lookup too (its fetch goes through the same rules)", async () => {
    const { clientId, targetPath } = await redirectingDocument();
    await expect(oauthHelpers(ORIGIN, env).lookupClient(clientId)).rejects.toBeInstanceOf(CimdFetchError);
    expect(await documentHits(targetPath)).toBe(0);
  });
});

describe("a document's content type", () => {
  it("text/html is refused, naming the content type and the one accepted", async () => {
    const path = `html/${crypto.randomUUID()}.json`;
    const clientId = `https://client-metadata.test/${path}`;
    await publishClientMetadata(path, validDocument(clientId), 200, { contentType: "text/html; charset=utf-8" });
    const page = await authorizePage(clientId);
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    expect(await page.text()).toContain("is served as text/html, not application/json");
    const token = await tokenRefusal(clientId);
    expect(token.status).toBe(401);
    expect(token.error).toBe("invalid_client");
    expect(token.description).toContain("is served as text/html, not application/json");
  });

  it("application/json with a charset is accepted", async () => {
    const path = `json-charset/${crypto.randomUUID()}.json`;
    const clientId = `https://client-metadata.test/${path}`;
    await publishClientMetadata(path, validDocument(clientId), 200, { contentType: "application/json; charset=utf-8" });
    const page = await authorizePage(clientId);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('value="sign_in"');
  });
});

describe("a document's size", () => {
  it("over 5 KiB is refused, naming the limit", async () => {
    const path = `large/${crypto.randomUUID()}.json`;
    const clientId = `https://client-metadata.test/${path}`;
    await publishClientMetadata(path, { client_name: "x".repeat(6000), redirect_uris: [LOOPBACK_REDIRECT] });
    const page = await authorizePage(clientId);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("larger than 5 KiB");
  });
});

describe("fetches per authorization", () => {
  it("one fetch serves the whole authorization: sign-in, consent, the code and its exchange", async () => {
    const path = `once/${crypto.randomUUID()}.json`;
    const clientId = await publishClientMetadata(path, { ...PUBLIC_CLIENT, client_name: "Once" });
    const user = await createUser();
    const { verifier, challenge } = await pkce();
    const { callback } = await authorizeInBrowser(new Browser(), authorizeUrl({ clientId, challenge }), user);
    const code = callback.searchParams.get("code");
    expect(code, `authorization succeeded (${callback.search})`).toBeTruthy();
    const exchange = await tokenRequest({
      grant_type: "authorization_code",
      code: code!,
      client_id: clientId,
      redirect_uri: LOOPBACK_REDIRECT,
      code_verifier: verifier,
    });
    expect(exchange.status).toBe(200);
    expect(await documentHits(path)).toBe(1);
  });
});

describe("the fetch rate limit per caller address", () => {
  /**
   * Sends fetch triggers for new documents from `ip` until one is refused. A burst spans two
   * minute-windows at most, so of 2 × limit + 1 triggers one at least is refused.
   */
  type Trigger = (clientId: string, ip: string) => Promise<Response>;

  async function burstUntilRefused(ip: string, send: Trigger): Promise<{ path: string; response: Response }> {
    for (let sent = 0; sent < 2 * CIMD_FETCHES_PER_MINUTE + 1; sent++) {
      const path = `burst/${crypto.randomUUID()}.json`;
      const response = await send(`https://client-metadata.test/${path}`, ip);
      if (response.status === 429) return { path, response };
      // The documents do not exist: every allowed trigger was fetched and refused for its 404.
      expect(response.status, path).toBeLessThan(500);
      expect(response.status, path).not.toBe(200);
    }
    throw new Error(`no refusal in ${2 * CIMD_FETCHES_PER_MINUTE + 1} fetch triggers from one address`);
  }

  function tokenTrigger(clientId: string, ip: string): Promise<Response> {
    return workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": ip },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "1:2:3", client_id: clientId }).toString(),
    });
  }

  it(`/authorize: over ${CIMD_FETCHES_PER_MINUTE} a minute from one address is refused before fetching; not another address`, async () => {
    const refused = await burstUntilRefused(callerIp(), authorizePage);
    expect(refused.response.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.response.headers.get("location")).toBeNull();
    expect(await refused.response.text()).toContain(`at most ${CIMD_FETCHES_PER_MINUTE} a minute`);
    expect(await documentHits(refused.path), "the refused request fetched nothing").toBe(0);
    const other = await authorizePage(`https://client-metadata.test/burst/${crypto.randomUUID()}.json`);
    expect(other.status).toBe(400);
  });

  it("the token endpoint: the same limit, answered temporarily_unavailable with Retry-After", async () => {
    const refused = await burstUntilRefused(callerIp(), tokenTrigger);
    expect(refused.response.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = await refused.response.json<{ error: string; error_description: string }>();
    expect(body.error).toBe("temporarily_unavailable");
    expect(body.error_description).toContain(`at most ${CIMD_FETCHES_PER_MINUTE} a minute`);
    expect(await documentHits(refused.path), "the refused request fetched nothing").toBe(0);
  });
});

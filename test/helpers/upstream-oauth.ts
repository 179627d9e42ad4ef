/**
 * Connecting a source's upstream account in the tests, as a user's browser does it: register an
 * OAuth-protected source (the upstream Worker's /mcp/tasks, whose authorization server is that
 * Worker's own, at its own origin: test/upstreams/upstream-worker.ts), ask for the connect link over
 * REST, then follow it in a Browser (a cookie jar per origin, manual redirects): mcp-edge's sign-in,
 * the upstream's sign-in and consent, the callback. Nothing is shortcut: every hop is a real route
 * of one of the two Workers.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { secretBox } from "../../workers/gateway/sources/secrets";
import { type SourceDetailBody, TASKS_URL } from "./gateway";
import { workerFetch } from "./mcp";
import { UPSTREAM_ORIGIN } from "../upstreams/upstream-origin";
import { Browser, formFields, offeredScopes, ORIGIN, publishClientMetadata } from "./oauth";
import { api } from "./rest";
import { createUser, type TestUser } from "./users";

export interface AuthorizationBody {
  status: "needs_authorization" | "connected" | "authorization_expired";
  authorization_server: string | null;
  resource: string | null;
  scopes_supported: string[];
  granted_scope: string | null;
  client_identification: string | null;
  refreshed_at: string | null;
  expires_at: string | null;
  last_error: string | null;
  redirect_uri: string | null;
  warnings: string[];
}

/** Publishes what GET /oauth/gateway-client.json serves where the test bindings say authorization servers fetch it. */
export async function publishGatewayClientDocument(): Promise<Record<string, unknown>> {
  const res = await workerFetch(`${ORIGIN}/oauth/gateway-client.json`);
  expect(res.status).toBe(200);
  const document = await res.json<Record<string, unknown>>();
  await publishClientMetadata("mcp-edge/gateway-client.json", JSON.stringify(document));
  return document;
}

/** Registers the upstream Worker's /mcp/tasks as a source with no credentials of its own: an OAuth-protected upstream. */
export async function registerOAuthTasksSource(
  owner: TestUser,
  name = `OAuth Tasks ${crypto.randomUUID().slice(0, 6)}`,
): Promise<SourceDetailBody> {
  const res = await api<SourceDetailBody>(owner, "POST", "/api/sources", { body: { name, url: TASKS_URL } });
  expect(res.status).toBe(201);
  return res.body;
}

export async function authorizationOf(owner: TestUser, sourceId: number): Promise<AuthorizationBody> {
  const res = await api<AuthorizationBody>(owner, "GET", `/api/sources/${sourceId}/authorization`);
  expect(res.status).toBe(200);
  return res.body;
}

export async function connectLink(owner: TestUser, sourceId: number, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api<{ authorization_url: string }>(owner, "POST", `/api/sources/${sourceId}/authorize`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.authorization_url;
}

export interface BrowserRun {
  /** Every URL the browser was sent to, in order. */
  visited: string[];
  /** The last response (the callback's page, or its redirect to the console). */
  final: Response;
  finalHtml: string;
  consentShown: boolean;
}

/** Whether `path` is one of the gateway's upstream redirect URIs: the metadata document's, or an issuer's own (`/callback/<tag>`). */
export function isUpstreamCallback(path: string): boolean {
  return /^\/oauth\/upstream\/callback(\/[0-9a-f]{32})?$/.test(path);
}

/** The origins the browser follows: the Worker's and the upstream Worker's (the user has an account on both). */
const FOLLOWED = new Set([ORIGIN, UPSTREAM_ORIGIN]);

/**
 * Opens `url` in `browser` and follows it to the end: redirects, the sign-in of mcp-edge or of the
 * upstream Worker (with the user's API token: the two share their users), the connect link's
 * confirmation page (Continue), and the upstream's consent page (approving `scopes`, default all
 * offered). Stops at a page that is none of these, or at a redirect that leaves both Workers'
 * origins or goes to the console.
 */
export async function followInBrowser(
  browser: Browser,
  url: string,
  user: TestUser,
  choice: { scopes?: string[]; decision?: "approve" | "deny"; stopAtCallback?: boolean; stopAtConfirmation?: boolean } = {},
): Promise<BrowserRun> {
  const visited: string[] = [];
  let next = url;
  let consentShown = false;
  for (let hop = 0; hop < 20; hop++) {
    visited.push(next);
    const page = new URL(next, ORIGIN);
    // Forms post to the page's own origin, as a browser sends them.
    const on = (path: string) => new URL(path, page.origin).href;
    let response = await browser.get(next);
    if (response.status === 302 || response.status === 303) {
      const location = new URL(response.headers.get("location")!, page);
      const atCallback = choice.stopAtCallback === true && isUpstreamCallback(location.pathname);
      const stop = !FOLLOWED.has(location.origin) || (location.origin === ORIGIN && location.pathname === "/") || atCallback;
      if (stop) return { visited: [...visited, location.href], final: response, finalHtml: "", consentShown };
      next = location.href;
      continue;
    }
    const html = await response.text();
    if (html.includes('value="sign_in"')) {
      const signIn: [string, string][] = [...Object.entries(formFields(html, "api_token")), ["token", user.token]];
      response = await browser.post(on("/authorize"), signIn, page.origin);
      expect(response.status, "sign-in answers with a redirect back").toBe(303);
      next = new URL(response.headers.get("location")!, page).href;
      continue;
    }
    if (html.includes('value="connect_upstream"')) {
      if (choice.stopAtConfirmation === true) return { visited, final: response, finalHtml: html, consentShown };
      response = await browser.post(on("/oauth/upstream/connect"), Object.entries(formFields(html, "connect_upstream")), page.origin);
      expect(response.status, "confirming the connect link answers with a redirect to the authorization server").toBe(303);
      const location = new URL(response.headers.get("location")!, page);
      if (!FOLLOWED.has(location.origin)) return { visited: [...visited, location.href], final: response, finalHtml: "", consentShown };
      next = location.href;
      continue;
    }
    if (html.includes('value="consent"')) {
      consentShown = true;
      const scopes = choice.scopes ?? offeredScopes(html);
      const consent: [string, string][] = [
        ...Object.entries(formFields(html, "consent")),
        ["decision", choice.decision ?? "approve"],
        ...scopes.map((scope): [string, string] => ["scope", scope]),
      ];
      response = await browser.post(on("/authorize"), consent, page.origin);
      expect(response.status, "consent answers with a redirect to the client").toBe(302);
      next = new URL(response.headers.get("location")!, page).href;
      if (choice.stopAtCallback === true && isUpstreamCallback(new URL(next).pathname)) {
        return { visited: [...visited, next], final: response, finalHtml: "", consentShown };
      }
      continue;
    }
    return { visited, final: response, finalHtml: html, consentShown };
  }
  throw new Error(`the browser was redirected too often: ${visited.join(" → ")}`);
}

/** The whole connect: the REST link, then the browser to the end; expects the "Connected" page. */
export async function connectSource(
  owner: TestUser,
  sourceId: number,
  options: { browser?: Browser; scope?: string; scopes?: string[] } = {},
): Promise<BrowserRun> {
  const link = await connectLink(owner, sourceId, options.scope ? { scope: options.scope } : {});
  const run = await followInBrowser(options.browser ?? new Browser(), link, owner, options.scopes ? { scopes: options.scopes } : {});
  expect(run.final.status, run.finalHtml.slice(0, 500)).toBe(200);
  expect(run.finalHtml).toContain("is connected to your account");
  return run;
}

/** A new user whose new OAuth-protected tasks source is connected, and the upstream tokens that gave it. */
export async function connectedTasksSource(): Promise<{ owner: TestUser; source: SourceDetailBody["source"]; tokens: StoredTokens }> {
  const owner = await createUser();
  const { source } = await registerOAuthTasksSource(owner);
  await connectSource(owner, source.id);
  const tokens = await storedTokens(owner.id, source.id);
  expect(tokens, "connecting stored tokens").not.toBeNull();
  return { owner, source, tokens: tokens! };
}

export interface StoredTokens {
  access_token: string;
  refresh_token?: string;
  scope?: string;
}

/** The owner's upstream tokens as D1 holds them, opened with the test sealing key: what the gateway sends. */
export async function storedTokens(userId: number, sourceId: number): Promise<StoredTokens | null> {
  const row = await env.DB.prepare("SELECT tokens FROM source_authorizations WHERE source_id = ? AND user_id = ?")
    .bind(sourceId, userId)
    .first<{ tokens: string | null }>();
  if (!row?.tokens) return null;
  return JSON.parse(await secretBox(env.SOURCE_SECRETS_KEY).open(userId, `:oauth:tokens:${sourceId}`, row.tokens)) as StoredTokens;
}

/** Seals `tokens` into the source's row as the gateway would (the tests' stand-in for a token the upstream forgot). */
export async function replaceStoredTokens(userId: number, sourceId: number, tokens: StoredTokens): Promise<void> {
  const sealed = await secretBox(env.SOURCE_SECRETS_KEY).seal(userId, `:oauth:tokens:${sourceId}`, JSON.stringify(tokens));
  await env.DB.prepare("UPDATE source_authorizations SET tokens = ? WHERE source_id = ? AND user_id = ?")
    .bind(sealed, sourceId, userId)
    .run();
}

/** Makes the stored access token look about to expire, so the next use refreshes it. */
export async function expireAccessToken(sourceId: number): Promise<void> {
  await env.DB.prepare("UPDATE source_authorizations SET token_expires_at = ? WHERE source_id = ?")
    .bind(new Date(Date.now() - 1000).toISOString(), sourceId)
    .run();
}

/**
 * How many refresh tokens the upstream Worker's authorization server has issued for the grant
 * `refreshToken` belongs to — one for the code exchange, one per refresh it answered (what its reuse
 * detection remembers, workers/auth/refresh-reuse.ts); 0 once the grant is revoked.
 */
export async function refreshTokensIssued(refreshToken: string): Promise<number> {
  const [user, grant] = refreshToken.split(":");
  const key = `mcpe-refresh-issued:${user}:${grant}`;
  const issued = await env.UPSTREAM_OAUTH_KV.get<string[]>(key, "json");
  return issued?.length ?? 0;
}

/** Runs a connect of `sourceId` in `browser` up to the authorization server's redirect to the callback, and returns that callback URL unopened. */
export async function callbackOf(user: TestUser, sourceId: number, browser: Browser): Promise<string> {
  const run = await followInBrowser(browser, await connectLink(user, sourceId), user, { stopAtCallback: true });
  const callback = run.visited.at(-1)!;
  expect(isUpstreamCallback(new URL(callback).pathname), callback).toBe(true);
  return callback;
}

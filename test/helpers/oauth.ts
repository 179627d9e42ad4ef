/**
 * OAuth flows in the tests, as real clients and a real browser would run them: the official MCP
 * client's OAuth support (an OAuthClientProvider with DCR or a Client ID Metadata Document), and a
 * "browser" with a cookie jar that follows /authorize, posts the sign-in and consent forms and
 * stops at the client's callback. Requests to the Worker go in-process (workerFetch); the browser
 * also reaches the upstream Worker (test/upstreams/upstream-worker.ts) over the test network.
 */
import { type OAuthClientProvider, Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import { type Era, eraOptions, workerFetch } from "./mcp";
import { UPSTREAM_ORIGIN } from "../upstreams/upstream-origin";
import { upstreams } from "./upstreams";
import type { TestUser } from "./users";

export const ORIGIN = "http://localhost";
export const METADATA_HOST = "client-metadata.test";

/** Cookies as a browser keeps them for one origin (our cookies are all host-only, Path=/). */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const index = pair!.indexOf("=");
      const name = pair!.slice(0, index).trim();
      const expired = attributes.some((attribute) => /^\s*max-age\s*=\s*0\s*$/i.test(attribute));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(index + 1).trim());
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** The Worker in-process, or the upstream Worker over the test network. */
function sendFromBrowser(input: string, init: RequestInit): Promise<Response> {
  return new URL(input).origin === UPSTREAM_ORIGIN ? fetch(input, init) : workerFetch(input, init);
}

/**
 * A browser tab: sends each origin's cookies there, stores what comes back, never follows redirects
 * itself. Paths are on the Worker (ORIGIN); absolute URLs may name the upstream Worker too. `send`
 * is how requests go (default: the Worker's fetch with the test bindings, the upstream's over the
 * test network).
 */
export class Browser {
  /** The Worker's cookies. */
  readonly jar = new CookieJar();
  private readonly otherJars = new Map<string, CookieJar>();

  constructor(private readonly send: (input: string, init: RequestInit) => Promise<Response> = sendFromBrowser) {}

  private jarOf(url: URL): CookieJar {
    if (url.origin === ORIGIN) return this.jar;
    let jar = this.otherJars.get(url.origin);
    if (!jar) this.otherJars.set(url.origin, (jar = new CookieJar()));
    return jar;
  }

  async get(url: string): Promise<Response> {
    const target = new URL(url, ORIGIN);
    const jar = this.jarOf(target);
    const response = await this.send(target.href, { headers: { cookie: jar.header() }, redirect: "manual" });
    jar.store(response);
    return response;
  }

  /** A form post to `path` (on the Worker, or an absolute URL) from a page on `origin` (null: no Origin header). */
  async post(path: string, fields: [string, string][], origin: string | null = ORIGIN): Promise<Response> {
    const target = new URL(path, ORIGIN);
    const jar = this.jarOf(target);
    const headers: Record<string, string> = { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" };
    if (origin !== null) headers["origin"] = origin;
    const body = new URLSearchParams(fields).toString();
    const response = await this.send(target.href, { method: "POST", headers, body, redirect: "manual" });
    jar.store(response);
    return response;
  }
}

function unescapeHtml(value: string): string {
  return value.replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)));
}

/** The hidden inputs of the form containing `marker` (a hidden field value such as "sign_in"). */
export function formFields(html: string, marker: string): Record<string, string> {
  const forms = html.split("<form").slice(1);
  const form = forms.find((candidate) => candidate.includes(`value="${marker}"`)) ?? "";
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = unescapeHtml(match[2]!);
  return fields;
}

/** The scopes the consent page offers (its checkboxes). */
export function offeredScopes(html: string): string[] {
  return [...html.matchAll(/name="scope" value="([^"]+)"/g)].map((match) => unescapeHtml(match[1]!));
}

/** The scopes the consent page offers ticked: what a user who just clicks Allow grants. */
export function tickedScopes(html: string): string[] {
  return [...html.matchAll(/name="scope" value="([^"]+)" checked>/g)].map((match) => unescapeHtml(match[1]!));
}

export interface ConsentChoice {
  /** The scopes to leave ticked; default: all offered. */
  scopes?: string[];
  decision?: "approve" | "deny";
}

/**
 * Follows an authorization URL as the user would: signs in with the API token when asked,
 * approves (or denies) on the consent page, and returns the client callback URL the server
 * redirected to. `consentShown` tells whether the consent page appeared.
 */
export async function authorizeInBrowser(
  browser: Browser,
  authorizationUrl: string,
  user: TestUser,
  choice: ConsentChoice = {},
): Promise<{ callback: URL; consentShown: boolean }> {
  let response = await browser.get(authorizationUrl);
  let html = response.status === 200 ? await response.text() : "";
  if (html.includes('value="sign_in"')) {
    const fields = formFields(html, "api_token");
    response = await browser.post("/authorize", [...Object.entries(fields), ["token", user.token]]);
    expect(response.status, "sign-in answers with a redirect back to the authorization").toBe(303);
    response = await browser.get(response.headers.get("location")!);
    html = response.status === 200 ? await response.text() : "";
  }
  let consentShown = false;
  if (response.status === 200) {
    consentShown = true;
    expect(html).toContain("Allow");
    const fields = formFields(html, "consent");
    const scopes = choice.scopes ?? offeredScopes(html);
    response = await browser.post("/authorize", [
      ...Object.entries(fields),
      ["decision", choice.decision ?? "approve"],
      ...scopes.map((scope): [string, string] => ["scope", scope]),
    ]);
  }
  expect(response.status, `authorization ends in a redirect to the client (got ${response.status})`).toBe(302);
  return { callback: new URL(response.headers.get("location")!), consentShown };
}

export const LOOPBACK_REDIRECT = "http://127.0.0.1:33418/callback";

/** An MCP client's OAuth state, kept in memory: what the SDK asks a real client to persist. */
export class TestOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private client: Parameters<NonNullable<OAuthClientProvider["saveClientInformation"]>>[0] | undefined;
  private saved: Parameters<OAuthClientProvider["saveTokens"]>[0] | undefined;
  private verifier = "";
  private discovery: Parameters<NonNullable<OAuthClientProvider["saveDiscoveryState"]>>[0] | undefined;

  constructor(private readonly options: { name: string; clientMetadataUrl?: string; redirectUrl?: string; scope?: string }) {}

  get redirectUrl(): string {
    return this.options.redirectUrl ?? LOOPBACK_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata() {
    return {
      client_name: this.options.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(info: NonNullable<typeof this.client>): void {
    this.client = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: NonNullable<typeof this.saved>): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  saveDiscoveryState(state: NonNullable<typeof this.discovery>): void {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }
}

/** How the document server answers for a document: its content type and, for a redirect, where to. */
export interface ServedAs {
  contentType?: string;
  location?: string;
}

/** Stores a client's metadata document on the test document server; its URL is the client_id. */
export async function publishClientMetadata(
  path: string,
  document: Record<string, unknown> | string,
  status = 200,
  served: ServedAs = {},
): Promise<string> {
  const url = `https://${METADATA_HOST}/${path}`;
  const body = typeof document === "string" ? document : JSON.stringify({ client_id: url, ...document });
  const stored = JSON.stringify({ body, status, ...served });
  const response = await fetch(`${upstreams().metadata_documents}/documents/${path}`, { method: "PUT", body: stored });
  expect(response.status).toBe(204);
  return url;
}

/** How many times the document server was asked for `path` (by any host name: the test host or its loopback address). */
export async function documentHits(path: string): Promise<number> {
  const response = await fetch(`${upstreams().metadata_documents}/hits/${path}`);
  return (await response.json<{ hits: number }>()).hits;
}

export function mcpClient(era: Era): Client {
  return new Client({ name: "mcp-edge-oauth-tests", version: "1.0.0" }, eraOptions(era));
}

export function oauthTransport(path: string, provider: OAuthClientProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(path, ORIGIN), { fetch: workerFetch, authProvider: provider });
}

/**
 * Connects an MCP client with OAuth as a real one does: the first connect meets a 401, the SDK
 * discovers, registers (DCR) or presents its metadata document URL (CIMD) and sends the user to
 * /authorize; the user signs in and consents in the browser; the SDK redeems the code and the
 * next connect succeeds.
 */
export async function connectWithOAuth(
  path: string,
  user: TestUser,
  provider: TestOAuthProvider,
  era: Era,
  browser = new Browser(),
  choice: ConsentChoice = {},
): Promise<Client> {
  await expect(mcpClient(era).connect(oauthTransport(path, provider))).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl, "the SDK sent the user to /authorize").toBeDefined();
  const { callback } = await authorizeInBrowser(browser, provider.authorizationUrl!.href, user, choice);
  const transport = oauthTransport(path, provider);
  await transport.finishAuth(callback.searchParams);
  const client = mcpClient(era);
  await client.connect(oauthTransport(path, provider));
  return client;
}

/** A PKCE pair (S256). */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = `${crypto.randomUUID()}${crypto.randomUUID()}`.replace(/-/g, "");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  return { verifier, challenge };
}

/** Registers a public client (DCR) from its own address, so rate limits of other tests never apply. */
export async function registerClient(redirectUris: string[] = [LOOPBACK_REDIRECT], name = "Test client"): Promise<string> {
  const res = await workerFetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "cf-connecting-ip": `198.51.100.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`,
    },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: redirectUris,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  expect(res.status).toBe(201);
  return (await res.json<{ client_id: string }>()).client_id;
}

export interface AuthorizeParams {
  clientId: string;
  scope?: string;
  resource?: string | null;
  redirectUri?: string;
  challenge?: string | null;
  method?: string | null;
  state?: string;
}

export function authorizeUrl(params: AuthorizeParams): string {
  const url = new URL("/authorize", ORIGIN);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", params.clientId);
  url.searchParams.set("redirect_uri", params.redirectUri ?? LOOPBACK_REDIRECT);
  url.searchParams.set("state", params.state ?? "state-1");
  if (params.scope !== undefined) url.searchParams.set("scope", params.scope);
  if (params.resource !== null) url.searchParams.set("resource", params.resource ?? `${ORIGIN}/mcp/tasks`);
  if (params.challenge !== null && params.challenge !== undefined) url.searchParams.set("code_challenge", params.challenge);
  if (params.method !== null) url.searchParams.set("code_challenge_method", params.method ?? "S256");
  return url.href;
}

export async function tokenRequest(fields: Record<string, string>): Promise<Response> {
  return workerFetch(`${ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  resource?: string;
  expires_in: number;
}

/** Runs the whole flow by hand (registration, browser, code exchange) and returns the tokens. */
export async function obtainTokens(
  user: TestUser,
  options: { scope?: string; resource?: string | null; browser?: Browser } = {},
): Promise<{ tokens: IssuedTokens; clientId: string }> {
  const clientId = await registerClient();
  const { verifier, challenge } = await pkce();
  const { callback } = await authorizeInBrowser(
    options.browser ?? new Browser(),
    authorizeUrl({ clientId, scope: options.scope ?? "tasks:read", resource: options.resource, challenge }),
    user,
  );
  const code = callback.searchParams.get("code");
  expect(code, `authorization succeeded (callback ${callback.search})`).toBeTruthy();
  const res = await tokenRequest({
    grant_type: "authorization_code",
    code: code!,
    client_id: clientId,
    redirect_uri: LOOPBACK_REDIRECT,
    code_verifier: verifier,
  });
  expect(res.status).toBe(200);
  return { tokens: await res.json<IssuedTokens>(), clientId };
}

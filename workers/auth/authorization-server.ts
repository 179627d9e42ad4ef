/**
 * The OAuth 2.1 authorization server (@cloudflare/workers-oauth-provider's role API), one per
 * issuer origin, built on first use and kept for the isolate. Only workers/auth/ imports the
 * library; everything else sees principals, scope checks and challenge responses.
 *
 * Grants, tokens, registered clients and consent transactions live in the OAUTH_KV namespace
 * (docs/storage.md lists the key families). Access tokens live an hour; refresh tokens rotate
 * (the library keeps the one previous token valid until its successor is used, for a client that
 * lost a response); dynamically registered clients that stop being used expire.
 */
import { OAuthAuthorizationServer, type OAuthHelpers, type TokenSummary } from "@cloudflare/workers-oauth-provider";
import { log } from "../lib/log";
import { guardLibraryFetches } from "./library-fetch";
import { registrationRedirectProblem } from "./redirect-uris";
import { RESOURCE_PATHS, resourceUrl } from "./resources";
import { SCOPES } from "./scopes";

export const AUTHORIZE_PATH = "/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";

export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** A refresh token's grant lives 30 days from the code exchange. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
/** A dynamically registered client unused this long is deleted (one in use is renewed by the library). */
export const CLIENT_REGISTRATION_TTL_SECONDS = 30 * 24 * 60 * 60;

export interface AuthorizationServerOptions {
  /** Seconds an access token lives; tests make a short-lived server over the same KV. */
  accessTokenTTL?: number;
}

/** What `completeAuthorization` stores, encrypted, with each grant: the user it acts for. */
export interface GrantProps {
  userId: number;
}

export function createAuthorizationServer(issuer: string, options: AuthorizationServerOptions = {}): OAuthAuthorizationServer<Env> {
  guardLibraryFetches();
  return new OAuthAuthorizationServer<Env>({
    issuer,
    resources: RESOURCE_PATHS.map((path) => resourceUrl(issuer, path)),
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    scopesSupported: [...SCOPES],
    clientIdMetadataDocumentEnabled: true,
    // Native apps receive the code on a private-use scheme (RFC 8252 §7.1): Cursor's desktop app
    // uses cursor://anysphere.cursor-mcp/oauth/callback. PKCE (required of every client) binds
    // the code to the app that started the flow; the consent page names the scheme and warns that
    // an app on this computer receives the access (decision 0032). Which schemes: reverse-domain
    // names, never a browser's (redirect-uris.ts, decision 0053) — checked here at registration and
    // at /authorize for every client.
    allowPrivateUseRedirectUris: true,
    clientRegistrationCallback: ({ clientMetadata }) => {
      const problem = registrationRedirectProblem(clientMetadata["redirect_uris"]);
      return problem ? { code: "invalid_redirect_uri", description: problem } : undefined;
    },
    accessTokenTTL: options.accessTokenTTL ?? ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    clientRegistrationTTL: CLIENT_REGISTRATION_TTL_SECONDS,
    cookiePrefix: "__Host-mcpe-oauth-",
    // The wire answer stays the library's; the log gets the exact check that failed (never a secret).
    onError: ({ code, status, internal }) => {
      log.warn("oauth error", { code, status, category: internal.category, reason: internal.reason });
    },
  });
}

/** At most this many origins keep a server (only one when SELF_ORIGIN is set). */
const MAX_SERVERS = 8;
const servers = new Map<string, OAuthAuthorizationServer<Env>>();

/**
 * The authorization server of an issuer that `issuerFor` accepted. Without SELF_ORIGIN the
 * issuer follows the request's Host, so the cache is bounded: the oldest origin is dropped.
 */
export function authorizationServer(issuer: string): OAuthAuthorizationServer<Env> {
  let server = servers.get(issuer);
  if (!server) {
    if (servers.size >= MAX_SERVERS) servers.delete(servers.keys().next().value!);
    server = createAuthorizationServer(issuer);
    servers.set(issuer, server);
  }
  return server;
}

export function oauthHelpers(issuer: string, env: Env): OAuthHelpers {
  return authorizationServer(issuer).getOAuthApi(env);
}

/** An access token as the library stores it, with its props decrypted; null when unknown or expired. */
export function unwrapAccessToken(issuer: string, env: Env, token: string): Promise<TokenSummary<GrantProps> | null> {
  return oauthHelpers(issuer, env).unwrapToken<GrantProps>(token);
}

/** The library's access and refresh tokens are `<user>:<grant>:<secret>`; API tokens never contain ':'. */
export function isOAuthTokenShape(token: string): boolean {
  return token.split(":").length === 3;
}

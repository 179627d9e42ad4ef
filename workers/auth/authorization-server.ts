/**
 * The OAuth 2.1 authorization server (@cloudflare/workers-oauth-provider's role API), one per
 * issuer origin, built on first use and kept by the isolate (`AuthorizationServers`, in
 * workers/isolate-state.ts). Only workers/auth/ imports the library; everything else sees
 * principals, scope checks and challenge responses.
 *
 * Grants, tokens, registered clients and consent transactions live in the OAUTH_KV namespace
 * (docs/storage.md lists the key families). Access tokens live an hour; refresh tokens rotate
 * (the library keeps the one previous token valid until its successor is used, for a client that
 * lost a response); dynamically registered clients that stop being used expire.
 */
import { OAuthAuthorizationServer, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { BoundedCache } from "../lib/bounded-cache";
import { log } from "../lib/log";
import type { ClientDocuments } from "./client-metadata-fetch";
import { guardLibraryFetches } from "./library-fetch";
import { AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH } from "./paths";
import { registrationRedirectProblem } from "./redirect-uris";
import { RESOURCE_PATHS, resourceUrl } from "./resources";
import { SCOPES } from "./scopes";

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

/**
 * The isolate's authorization servers, one per issuer that `issuerOf` accepted. Without
 * SELF_ORIGIN the issuer follows the request's Host, so they are bounded: the oldest origin is
 * dropped. A server holds its configuration and the library's own per-instance caches (the JWKS of
 * `private_key_jwt` clients). The library's fetches of Client ID Metadata Documents read `documents`
 * first (library-fetch.ts).
 */
export class AuthorizationServers {
  private readonly servers = new BoundedCache<string, OAuthAuthorizationServer<Env>>({ maxEntries: MAX_SERVERS });

  constructor(private readonly documents: ClientDocuments) {}

  server(issuer: string): OAuthAuthorizationServer<Env> {
    let server = this.servers.get(issuer);
    if (!server) {
      guardLibraryFetches(this.documents);
      server = createAuthorizationServer(issuer);
      this.servers.set(issuer, server);
    }
    return server;
  }

  /** The library's helpers at `issuer`: parse and complete authorizations, consent, grants, clients, tokens. */
  helpers(issuer: string, env: Env): OAuthHelpers {
    return this.server(issuer).getOAuthApi(env);
  }
}

/** The library's access and refresh tokens are `<user>:<grant>:<secret>`; API tokens never contain ':'. */
export function isOAuthTokenShape(token: string): boolean {
  return token.split(":").length === 3;
}

/**
 * Sign-in: a person signing in to mcp-edge and allowing an app to act for them. The one service of
 * the inbound wing, which the routes (oauth.routes.ts, authorize/*.routes.ts and the upstream
 * connect pages) reach D1 and the isolate's memory through. It owns
 * - the browser's session: the row behind the session cookie (browser.ts), made by a sign-in,
 *   ended by signing out, and cleared of expired sessions and links whenever one is made;
 * - what the sign-in methods check (sign-in-methods.ts, oidc-sign-in.ts): an API token, a one-time
 *   code, the local user of an OpenID provider's identity;
 * - the consent a user gave before, keyed by user, client, redirect URI and resource, which answers
 *   a request without asking again when it covers it (scope-offer.ts);
 * - the grant: the code sent back to the app (grant.ts);
 * and it hands out this isolate's authorization server (the library), its fetched Client ID Metadata
 * Documents and the configured OpenID provider, as workers/isolate-state.ts keeps them.
 */
import type { AuthRequest, OAuthAuthorizationServer, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { type ApiTokenRow, findApiToken } from "./api-tokens.repo";
import type { AuthorizationServers } from "./authorization-server";
import { clearCookie, readCookie, SESSION_COOKIE, SESSION_SECONDS, setCookie } from "./authorize/browser";
import { completeFor, consentKey } from "./authorize/grant";
import { rememberedGrant } from "./authorize/scope-offer";
import {
  consumeLink,
  deleteExpired,
  deleteSession,
  findConsentScopes,
  findSession,
  findUsableLink,
  insertSession,
  saveConsent,
  type SessionRow,
} from "./authorize/sign-in.repo";
import { prepareClientMetadata } from "./client-id-guard";
import type { ClientDocuments } from "./client-metadata-fetch";
import { userForIdentity } from "./oidc/identities.repo";
import { type OidcIdentity, OpenIdProvider, type OpenIdProviders } from "./oidc/oidc-client";
import { oidcSettings } from "./oidc/oidc-settings";
import type { AuthUser } from "./principal";
import type { Scope } from "./scopes";
import { hashToken, randomSecret, TOKEN_PREFIX } from "./tokens";

export interface SignInDeps {
  db: Db;
  env: Env;
  /** The isolate's authorization servers, one per issuer. */
  servers: AuthorizationServers;
  /** The Client ID Metadata Documents the isolate fetched in the last minute. */
  documents: ClientDocuments;
  /** What the isolate knows of the OpenID provider. */
  openIdProviders: OpenIdProviders;
}

export class SignInService {
  constructor(private readonly deps: SignInDeps) {}

  /** The authorization server (the library) of `issuer`. */
  server(issuer: string): OAuthAuthorizationServer<Env> {
    return this.deps.servers.server(issuer);
  }

  /** The library's helpers at `issuer`: parse an authorization request, consent, clients, grants. */
  oauth(issuer: string): OAuthHelpers {
    return this.deps.servers.helpers(issuer, this.deps.env);
  }

  /** Before the library reads a metadata-document client_id: our checks, the caller's budget, the fetch (client-id-guard.ts). */
  prepareClientMetadata(request: Request, clientId: string): Promise<void> {
    return prepareClientMetadata(this.deps.env, this.deps.documents, request, clientId);
  }

  /** The OpenID provider of OIDC_ISSUER; `unavailable` naming the variable when it is not set up. */
  openIdProvider(): OpenIdProvider {
    return new OpenIdProvider(oidcSettings(this.deps.env), this.deps.openIdProviders);
  }

  /** Who this browser is signed in as, by its session cookie. */
  async session(request: Request): Promise<SessionRow | undefined> {
    const id = readCookie(request, SESSION_COOKIE);
    if (!id) return undefined;
    return findSession(this.deps.db, await hashToken(id), new Date().toISOString());
  }

  /**
   * Signs a browser in as `user`: the session cookie to set. `scopes`: the most this sign-in may
   * grant (a scoped API token's own); null = every scope.
   */
  async startSession(user: AuthUser, method: string, scopes: readonly string[] | null): Promise<string> {
    const id = randomSecret();
    const now = new Date();
    await deleteExpired(this.deps.db, now.toISOString());
    const expiresAt = new Date(now.getTime() + SESSION_SECONDS * 1000).toISOString();
    await insertSession(this.deps.db, await hashToken(id), user.id, method, scopes, expiresAt);
    return setCookie(SESSION_COOKIE, id, SESSION_SECONDS);
  }

  /** Ends this browser's sign-in (the row and the cookie): the cookie to send back clears it. */
  async endSession(request: Request): Promise<string> {
    const id = readCookie(request, SESSION_COOKIE);
    if (id) await deleteSession(this.deps.db, await hashToken(id));
    return clearCookie(SESSION_COOKIE);
  }

  /** The user and scopes of a pasted API token; undefined for anything that is not a live one. */
  async apiToken(token: string): Promise<ApiTokenRow | undefined> {
    return token.startsWith(TOKEN_PREFIX) ? findApiToken(this.deps.db, await hashToken(token)) : undefined;
  }

  /** The user a one-time sign-in code is for, while it is unused and unexpired (it is not spent here). */
  async usableLink(code: string): Promise<AuthUser | undefined> {
    return findUsableLink(this.deps.db, await hashToken(code), new Date().toISOString());
  }

  /** Spends a one-time sign-in code: its user, or `unauthorized` saying how to get a new one. */
  async redeemLoginCode(code: string): Promise<AuthUser> {
    const user = await consumeLink(this.deps.db, await hashToken(code), new Date().toISOString());
    if (!user) {
      const message =
        "That sign-in code is not valid: it was already used, has expired, or was mistyped. " +
        "Print a new one with `npm run token -- login-link --user NAME`.";
      throw new AppError("unauthorized", message);
    }
    return user;
  }

  /** The local user of the provider's (issuer, subject), created at the first sign-in. */
  async userForIdentity(identity: OidcIdentity): Promise<AuthUser> {
    const { user, created } = await userForIdentity(this.deps.db, identity, new Date().toISOString());
    if (created) log.info("oidc user created", { user: user.id, issuer: identity.issuer });
    return user;
  }

  /** What the consent `userId` gave before grants `request` without asking (scope-offer.ts); undefined: ask. */
  async rememberedGrant(issuer: string, request: AuthRequest, userId: number, offered: readonly Scope[]): Promise<Scope[] | undefined> {
    return rememberedGrant(request, offered, await findConsentScopes(this.deps.db, consentKey(issuer, request, userId)));
  }

  /** Remembers that `userId` allowed `scopes` for this client, redirect URI and resource. */
  rememberConsent(issuer: string, request: AuthRequest, userId: number, scopes: string[]): Promise<void> {
    return saveConsent(this.deps.db, consentKey(issuer, request, userId), scopes, new Date().toISOString());
  }

  /** The grant: issues the code for `user` with `scopes` and redirects the browser to the app with it (grant.ts). */
  complete(issuer: string, grant: { request: AuthRequest; user: AuthUser; scopes: Scope[] }, headers?: Headers): Promise<Response> {
    return completeFor(this.oauth(issuer), this.deps.env.OAUTH_KV, issuer, grant, headers);
  }
}

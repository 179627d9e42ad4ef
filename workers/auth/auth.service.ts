/**
 * Bearer-token authentication: one validator for both kinds of token.
 * - `mcpe_…` API tokens are checked against D1 (never KV). They are not bound to a resource and
 *   grant the scopes in their `scopes` column (NULL = all).
 * - OAuth access tokens (`<user>:<grant>:<secret>`) are checked against the authorization
 *   server's KV (never D1 for the token; the user row is re-read so a deleted user's tokens die).
 *   They are accepted only where their audience covers the request's resource.
 * A verified token is remembered by the isolate (`VerifiedTokens`, in workers/isolate-state.ts),
 * keyed by its SHA-256, for TOKEN_CACHE_SECONDS and never beyond the token's own expiry: that is how
 * long a revoked token can still be used. Unknown tokens are never remembered.
 */
import { BoundedCache } from "../lib/bounded-cache";
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { findApiToken, findUser } from "./api-tokens.repo";
import { type AuthorizationServers, type GrantProps, isOAuthTokenShape } from "./authorization-server";
import type { Principal } from "./principal";
import { audienceCovers } from "./resources";
import { ALL_SCOPES, expandScopes } from "./scopes";
import { hashToken, TOKEN_PREFIX } from "./tokens";

export type { AuthUser } from "./principal";

const MAX_VERIFIED_TOKENS = 10_000;

interface VerifiedToken {
  principal: Principal;
  /** Epoch ms: TOKEN_CACHE_SECONDS after the check, or the token's own expiry when sooner. */
  expiresAt: number;
}

/** Principals of verified tokens by the token's SHA-256; each entry carries its own expiry. */
export type VerifiedTokens = BoundedCache<string, VerifiedToken>;

export function verifiedTokens(): VerifiedTokens {
  return new BoundedCache({ maxEntries: MAX_VERIFIED_TOKENS });
}

export function bearerToken(header: string | undefined | null): string {
  if (!header) {
    throw new AppError(
      "unauthorized",
      "Missing Authorization header: send `Authorization: Bearer <token>` (sign in with OAuth, or create an API token with `npm run token -- create --user <name>`)",
    );
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError("unauthorized", "Malformed Authorization header: expected `Bearer <token>`");
  return match[1]!;
}

export interface AuthenticationDeps {
  /** The primary: where a lookup that missed on `replica` is confirmed. */
  db: Db;
  /** Read first when given: a D1 replica, which may not have a token or user created a moment ago (decision 0065). */
  replica?: Db | undefined;
  env: Env;
  /** What the isolate remembers of verified tokens. */
  tokens: VerifiedTokens;
  /** The authorization servers OAuth access tokens are unwrapped by. */
  servers: AuthorizationServers;
}

/** What one request's token is checked for. */
export interface AuthenticationRequest {
  /** How long a verified token is remembered (TOKEN_CACHE_SECONDS); 0: not at all. */
  cacheSeconds: number;
  /** The issuer of this origin's OAuth tokens; undefined where OAuth is unavailable (auth/issuer.ts). */
  issuer: string | undefined;
  /** The canonical resource the request is for; undefined = no audience check. */
  resource: string | undefined;
}

export class Authentication {
  constructor(private readonly deps: AuthenticationDeps) {}

  /** The principal of the request's bearer token (audience-checked), or an `unauthorized` AppError. */
  async authenticate(request: AuthenticationRequest, authorization: string | undefined | null): Promise<Principal> {
    const token = bearerToken(authorization);
    const hash = await hashToken(token);
    const now = Date.now();
    const { tokens } = this.deps;
    const remembered = tokens.get(hash);
    let principal = remembered && remembered.expiresAt > now ? remembered.principal : undefined;
    if (!principal) {
      tokens.delete(hash);
      const verified = await this.verify(token, hash, request, now);
      principal = verified.principal;
      if (request.cacheSeconds > 0 && verified.expiresAt > now) tokens.set(hash, verified);
    }
    if (request.resource !== undefined) assertAudience(principal, request.resource);
    return principal;
  }

  private async verify(token: string, hash: string, request: AuthenticationRequest, now: number): Promise<VerifiedToken> {
    const { db, replica, env, servers } = this.deps;
    const cacheUntil = now + request.cacheSeconds * 1000;
    if (token.startsWith(TOKEN_PREFIX)) {
      const row = (replica && (await findApiToken(replica, hash))) || (await findApiToken(db, hash));
      if (!row) throw new AppError("unauthorized", "Invalid or revoked API token");
      const scopes = row.scopes === null ? ALL_SCOPES : expandScopes(row.scopes);
      return { principal: { user: row.user, scopes, via: "api_token" }, expiresAt: cacheUntil };
    }
    if (request.issuer && isOAuthTokenShape(token)) {
      const summary = await servers.helpers(request.issuer, env).unwrapToken<GrantProps>(token);
      const userId = summary?.grant.props.userId;
      const user = userId === undefined ? undefined : (replica && (await findUser(replica, userId))) || (await findUser(db, userId));
      if (!summary || !user) throw new AppError("unauthorized", "Invalid, expired or revoked access token");
      const audience = Array.isArray(summary.audience) ? summary.audience[0] : summary.audience;
      const principal: Principal = { user, scopes: expandScopes(summary.scope), via: "oauth", clientId: summary.grant.clientId, audience };
      return { principal, expiresAt: Math.min(cacheUntil, summary.expiresAt * 1000) };
    }
    throw new AppError("unauthorized", "Invalid token: expected an OAuth access token or an `mcpe_` API token");
  }
}

/**
 * The audience rule: an OAuth principal is accepted only at a resource its token's audience covers
 * (API tokens are bound to no resource). Also applied to a principal handed over by the agent
 * Worker (http/principal-handover.ts), so the chat reaches exactly what the caller's token would.
 */
export function assertAudience(principal: Principal, resource: string): void {
  if (principal.via === "oauth" && !(principal.audience && audienceCovers(principal.audience, resource))) {
    throw new AppError(
      "unauthorized",
      `This access token was issued for ${principal.audience ?? "another resource"}; it is not accepted at ${resource}`,
    );
  }
}

/**
 * Bearer-token authentication: one validator for both kinds of token.
 * - `mcpe_…` API tokens are checked against D1 (never KV). They are not bound to a resource and
 *   grant the scopes in their `scopes` column (NULL = all).
 * - OAuth access tokens (`<user>:<grant>:<secret>`) are checked against the authorization
 *   server's KV (never D1 for the token; the user row is re-read so a deleted user's tokens die).
 *   They are accepted only where their audience covers the request's resource.
 * A verified token is cached in the isolate, keyed by its SHA-256, for TOKEN_CACHE_SECONDS and
 * never beyond the token's own expiry: that is how long a revoked token can still be used.
 * Unknown tokens are never cached.
 */
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { findApiToken, findUser } from "./api-tokens.repo";
import { isOAuthTokenShape, unwrapAccessToken } from "./authorization-server";
import type { Principal } from "./principal";
import { audienceCovers } from "./resources";
import { ALL_SCOPES, expandScopes } from "./scopes";
import { hashToken, TOKEN_PREFIX } from "./tokens";

export type { AuthUser } from "./principal";

const MAX_CACHED_TOKENS = 10_000;
const cache = new Map<string, { principal: Principal; expiresAt: number }>();

export function clearTokenCache(): void {
  cache.clear();
}

export function bearerToken(header: string | undefined | null): string {
  if (!header) {
    throw new AppError("unauthorized", "Missing Authorization header: send `Authorization: Bearer <token>` (sign in with OAuth, or create an API token with `npm run token -- create --user <name>`)");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError("unauthorized", "Malformed Authorization header: expected `Bearer <token>`");
  return match[1]!;
}

export interface AuthenticationContext {
  /** The primary: where a lookup that missed on `replica` is confirmed. */
  db: Db;
  /** Read first when given: a D1 replica, which may not have a token or user created a moment ago. */
  replica?: Db;
  env: Env;
  cacheSeconds: number;
  /** The issuer of this origin's OAuth tokens; undefined where OAuth is unavailable (see `issuerFor`). */
  issuer: string | undefined;
  /** The canonical resource the request is for; undefined = no audience check. */
  resource: string | undefined;
}

async function verify(token: string, hash: string, ctx: AuthenticationContext, now: number): Promise<{ principal: Principal; expiresAt: number }> {
  const cacheUntil = now + ctx.cacheSeconds * 1000;
  if (token.startsWith(TOKEN_PREFIX)) {
    const row = (ctx.replica && (await findApiToken(ctx.replica, hash))) || (await findApiToken(ctx.db, hash));
    if (!row) throw new AppError("unauthorized", "Invalid or revoked API token");
    const scopes = row.scopes === null ? ALL_SCOPES : expandScopes(row.scopes);
    return { principal: { user: row.user, scopes, via: "api_token" }, expiresAt: cacheUntil };
  }
  if (ctx.issuer && isOAuthTokenShape(token)) {
    const summary = await unwrapAccessToken(ctx.issuer, ctx.env, token);
    const userId = summary?.grant.props.userId;
    const user =
      userId === undefined ? undefined : (ctx.replica && (await findUser(ctx.replica, userId))) || (await findUser(ctx.db, userId));
    if (!summary || !user) throw new AppError("unauthorized", "Invalid, expired or revoked access token");
    const audience = Array.isArray(summary.audience) ? summary.audience[0] : summary.audience;
    const principal: Principal = { user, scopes: expandScopes(summary.scope), via: "oauth", clientId: summary.grant.clientId, audience };
    return { principal, expiresAt: Math.min(cacheUntil, summary.expiresAt * 1000) };
  }
  throw new AppError("unauthorized", "Invalid token: expected an OAuth access token or an `mcpe_` API token");
}

export async function authenticate(ctx: AuthenticationContext, authorization: string | undefined | null): Promise<Principal> {
  const token = bearerToken(authorization);
  const hash = await hashToken(token);
  const now = Date.now();
  const cached = cache.get(hash);
  let principal = cached && cached.expiresAt > now ? cached.principal : undefined;
  if (!principal) {
    cache.delete(hash);
    const verified = await verify(token, hash, ctx, now);
    principal = verified.principal;
    if (ctx.cacheSeconds > 0 && verified.expiresAt > now) {
      if (cache.size >= MAX_CACHED_TOKENS) cache.delete(cache.keys().next().value!);
      cache.set(hash, verified);
    }
  }
  if (ctx.resource !== undefined) assertAudience(principal, ctx.resource);
  return principal;
}

/**
 * The audience rule: an OAuth principal is accepted only at a resource its token's audience covers
 * (API tokens are bound to no resource). Also applied to a principal handed over by the agent
 * Worker (http/principal-handover.ts), so the chat reaches exactly what the caller's token would.
 */
export function assertAudience(principal: Principal, resource: string): void {
  if (principal.via === "oauth" && !(principal.audience && audienceCovers(principal.audience, resource))) {
    throw new AppError("unauthorized", `This access token was issued for ${principal.audience ?? "another resource"}; it is not accepted at ${resource}`);
  }
}

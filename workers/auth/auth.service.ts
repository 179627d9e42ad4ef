/**
 * Bearer-token authentication. A verified token is cached in the isolate for
 * TOKEN_CACHE_SECONDS (default 30), so most requests spend no D1 round trip on auth; a revoked
 * token therefore stops working within that bound. Unknown tokens are never cached.
 */
import { and, eq, isNull } from "drizzle-orm";
import { apiTokens, users } from "../../d1/schema";
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { hashToken } from "./tokens";

export interface AuthUser {
  id: number;
  name: string;
}

const MAX_CACHED_TOKENS = 10_000;
const cache = new Map<string, { user: AuthUser; expiresAt: number }>();

export function clearTokenCache(): void {
  cache.clear();
}

export function bearerToken(header: string | undefined | null): string {
  if (!header) {
    throw new AppError("unauthorized", "Missing Authorization header: send `Authorization: Bearer <token>` (create one with `npm run token -- create --user <name>`)");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError("unauthorized", "Malformed Authorization header: expected `Bearer <token>`");
  return match[1]!;
}

export async function authenticate(db: Db, authorization: string | undefined | null, cacheSeconds: number): Promise<AuthUser> {
  const token = bearerToken(authorization);
  const hash = await hashToken(token);
  const now = Date.now();
  const cached = cache.get(hash);
  if (cached && cached.expiresAt > now) return cached.user;

  const row = await db
    .select({ id: users.id, name: users.name })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt)))
    .get();
  if (!row) {
    cache.delete(hash);
    throw new AppError("unauthorized", "Invalid or revoked API token");
  }
  if (cacheSeconds > 0) {
    if (cache.size >= MAX_CACHED_TOKENS) cache.delete(cache.keys().next().value!);
    cache.set(hash, { user: row, expiresAt: now + cacheSeconds * 1000 });
  }
  return row;
}

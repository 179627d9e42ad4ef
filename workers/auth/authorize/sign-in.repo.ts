/** D1 access of the sign-in page: sessions, one-time sign-in links and remembered consent. */
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { loginLinks, oauthConsents, oauthSessions, users } from "../../../d1/schema";
import type { Db } from "../../lib/db";
import type { AuthUser } from "../principal";

export interface SessionRow {
  user: AuthUser;
  /** The most this sign-in may grant; null = every scope. */
  scopes: string[] | null;
}

export async function insertSession(
  db: Db,
  idHash: string,
  userId: number,
  method: string,
  scopes: readonly string[] | null,
  expiresAt: string,
): Promise<void> {
  await db.insert(oauthSessions).values({ idHash, userId, method, scopes: scopes === null ? null : [...scopes], expiresAt });
}

export async function findSession(db: Db, idHash: string, now: string): Promise<SessionRow | undefined> {
  const row = await db
    .select({ id: users.id, name: users.name, scopes: oauthSessions.scopes })
    .from(oauthSessions)
    .innerJoin(users, eq(users.id, oauthSessions.userId))
    .where(and(eq(oauthSessions.idHash, idHash), gt(oauthSessions.expiresAt, now)))
    .get();
  return row ? { user: { id: row.id, name: row.name }, scopes: row.scopes } : undefined;
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.delete(oauthSessions).where(eq(oauthSessions.idHash, idHash));
}

/** Expired sessions and links are dropped whenever a new one is made: no cron needed. */
export async function deleteExpired(db: Db, now: string): Promise<void> {
  await db.batch([
    db.delete(oauthSessions).where(sql`${oauthSessions.expiresAt} <= ${now}`),
    db.delete(loginLinks).where(sql`${loginLinks.expiresAt} <= ${now}`),
  ]);
}

export function findUsableLink(db: Db, codeHash: string, now: string): Promise<AuthUser | undefined> {
  return db
    .select({ id: users.id, name: users.name })
    .from(loginLinks)
    .innerJoin(users, eq(users.id, loginLinks.userId))
    .where(and(eq(loginLinks.codeHash, codeHash), isNull(loginLinks.usedAt), gt(loginLinks.expiresAt, now)))
    .get();
}

/** Marks the link used; only the first of two racing requests gets its user back. */
export async function consumeLink(db: Db, codeHash: string, now: string): Promise<AuthUser | undefined> {
  const row = await db
    .update(loginLinks)
    .set({ usedAt: now })
    .where(and(eq(loginLinks.codeHash, codeHash), isNull(loginLinks.usedAt), gt(loginLinks.expiresAt, now)))
    .returning({ userId: loginLinks.userId })
    .get();
  if (!row) return undefined;
  return db.select({ id: users.id, name: users.name }).from(users).where(eq(users.id, row.userId)).get();
}

export interface ConsentKey {
  userId: number;
  clientId: string;
  redirectUri: string;
  resource: string;
}

function consentWhere(key: ConsentKey) {
  return and(
    eq(oauthConsents.userId, key.userId),
    eq(oauthConsents.clientId, key.clientId),
    eq(oauthConsents.redirectUri, key.redirectUri),
    eq(oauthConsents.resource, key.resource),
  );
}

export async function findConsentScopes(db: Db, key: ConsentKey): Promise<string[] | undefined> {
  const row = await db.select({ scopes: oauthConsents.scopes }).from(oauthConsents).where(consentWhere(key)).get();
  return row?.scopes;
}

export async function saveConsent(db: Db, key: ConsentKey, scopes: string[], now: string): Promise<void> {
  await db
    .insert(oauthConsents)
    .values({ ...key, scopes, updatedAt: now })
    .onConflictDoUpdate({
      target: [oauthConsents.userId, oauthConsents.clientId, oauthConsents.redirectUri, oauthConsents.resource],
      set: { scopes, updatedAt: now },
    });
}

/** D1 reads of authentication: an API token by its hash (with its user and scopes), a user by id. */
import { and, eq, isNull } from "drizzle-orm";
import { apiTokens, users } from "../../d1/schema";
import type { Db } from "../lib/db";
import type { AuthUser } from "./principal";

export interface ApiTokenRow {
  user: AuthUser;
  /** null = every scope. */
  scopes: string[] | null;
}

export async function findApiToken(db: Db, tokenHash: string): Promise<ApiTokenRow | undefined> {
  const row = await db
    .select({ id: users.id, name: users.name, scopes: apiTokens.scopes })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
    .get();
  return row ? { user: { id: row.id, name: row.name }, scopes: row.scopes } : undefined;
}

export function findUser(db: Db, id: number): Promise<AuthUser | undefined> {
  return db.select({ id: users.id, name: users.name }).from(users).where(eq(users.id, id)).get();
}

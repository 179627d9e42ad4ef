/**
 * The one fact of sources' MCP authorization the gateway reads itself: each source's connection
 * state, for health. Everything else of source_authorizations belongs to workers/upstream-connections/.
 */
import { eq } from "drizzle-orm";
import { sourceAuthorizations } from "../../../d1/schema";
import type { Db } from "../../lib/db";

export type AuthorizationState = (typeof sourceAuthorizations.$inferSelect)["status"];

/** The user's OAuth sources' states by source id; a source without OAuth is absent. */
export async function authorizationStates(db: Db, userId: number): Promise<Map<number, AuthorizationState>> {
  const rows = await db
    .select({ sourceId: sourceAuthorizations.sourceId, status: sourceAuthorizations.status })
    .from(sourceAuthorizations)
    .where(eq(sourceAuthorizations.userId, userId))
    .all();
  return new Map(rows.map((row) => [row.sourceId, row.status]));
}

/**
 * The sources whose resources, prompts, completions and skills /mcp serves a user (decisions 0068, 0072): the
 * user's own, enabled and not hidden — exactly the sources whose tools /mcp lists. Another user's,
 * a disabled, a hidden or a deleted source is indistinguishable from a missing one.
 */
import { and, asc, eq } from "drizzle-orm";
import { sources } from "../../../d1/schema";
import type { Db } from "../../lib/db";
import { type CallSource, callSourceColumns } from "./sources.repo";

const served = (userId: number) => and(eq(sources.userId, userId), eq(sources.enabled, true), eq(sources.hidden, false));

/** Every source /mcp serves this user (at most `limit`, when given), by slug. */
export function servedSources(db: Db, userId: number, limit?: number): Promise<CallSource[]> {
  const query = db.select(callSourceColumns).from(sources).where(served(userId)).orderBy(asc(sources.slug));
  return limit === undefined ? query.all() : query.limit(limit).all();
}

/** The source `<slug>` names for this user, or undefined (unknown, another user's, disabled, hidden or deleted). */
export function servedSource(db: Db, userId: number, slug: string): Promise<CallSource | undefined> {
  return db
    .select(callSourceColumns)
    .from(sources)
    .where(and(served(userId), eq(sources.slug, slug)))
    .get();
}

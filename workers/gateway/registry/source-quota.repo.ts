/**
 * D1 counts behind the cap on sources per user (GATEWAY_MAX_SOURCES_PER_USER, source-registry's
 * `create`). Scoped by user id like every statement on `sources`.
 */
import { and, count, eq, lte } from "drizzle-orm";
import { sources } from "../../../d1/schema";
import type { Db } from "../../lib/db";

/** How many sources the user has. */
export async function countSources(db: Db, userId: number): Promise<number> {
  const row = await db.select({ n: count() }).from(sources).where(eq(sources.userId, userId)).get();
  return row?.n ?? 0;
}

/**
 * How many of the user's sources were stored no later than source `id` (ids only grow): registrations
 * sent at once all pass the first count, and this orders them, so exactly the ones past the cap
 * see more than it and are taken back.
 */
export async function countSourcesUpTo(db: Db, userId: number, id: number): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(sources)
    .where(and(eq(sources.userId, userId), lte(sources.id, id)))
    .get();
  return row?.n ?? 0;
}

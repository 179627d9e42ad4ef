/** Queries of the outbox that are not part of relaying it (outbox.relay.ts). */
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { outbox } from "../../d1/schema";
import type { Db } from "../lib/db";

/** An event younger than this is probably still on its first trip through the queue (the relay leaves it alone). */
export const RELAY_GRACE_MS = 60_000;

/**
 * For /health: `delayed` when some event has waited longer than the relay's grace period (the
 * queue is not confirming deliveries) — a status, never a count, as anyone may ask. With a user,
 * also that user's own undelivered events.
 */
export async function outboxStatus(db: Db, userId?: number, now = Date.now()): Promise<{ status: "ok" | "delayed"; backlog?: number }> {
  const cutoff = new Date(now - RELAY_GRACE_MS).toISOString();
  const late = await db
    .select({ id: outbox.eventId })
    .from(outbox)
    .where(and(isNull(outbox.deliveredAt), lt(outbox.createdAt, cutoff)))
    .limit(1)
    .get();
  const status = late ? "delayed" : "ok";
  if (userId === undefined) return { status };
  const mine = await db
    .select({ count: sql<number>`count(*)` })
    .from(outbox)
    .where(and(isNull(outbox.deliveredAt), eq(outbox.userId, userId)))
    .get();
  return { status, backlog: mine?.count ?? 0 };
}

/**
 * Re-sends outbox events the queue has not confirmed (no delivered_at) after a grace period — the
 * path for sends that failed or were cut off. Runs from the cron trigger. Duplicates are harmless:
 * the consumer is idempotent by event id.
 */
import { and, asc, inArray, isNull, lt, sql } from "drizzle-orm";
import { outbox } from "../../d1/schema";
import type { Db } from "../lib/db";
import { log } from "../lib/log";
import { type DomainEvent, domainEventSchema } from "./events";
import { sendEvents } from "./event-sink";

/** An event younger than this is probably still on its first trip through the queue. */
export const RELAY_GRACE_MS = 60_000;
const RELAY_BATCH = 100;

export async function relayPendingEvents(db: Db, queue: Queue, now = Date.now()): Promise<{ sent: number; failed: number }> {
  const cutoff = new Date(now - RELAY_GRACE_MS).toISOString();
  const rows = await db
    .select({ eventId: outbox.eventId, payload: outbox.payload })
    .from(outbox)
    .where(and(isNull(outbox.deliveredAt), lt(outbox.createdAt, cutoff)))
    .orderBy(asc(outbox.createdAt))
    .limit(RELAY_BATCH)
    .all();
  if (rows.length === 0) return { sent: 0, failed: 0 };

  const events: DomainEvent[] = rows.map((row) => domainEventSchema.parse(JSON.parse(row.payload)));
  const ids = rows.map((row) => row.eventId);
  const attemptAt = new Date(now).toISOString();
  try {
    await sendEvents(queue, events);
  } catch (error) {
    await db
      .update(outbox)
      .set({ attempts: sql`${outbox.attempts} + 1`, lastAttemptAt: attemptAt, lastError: String(error).slice(0, 500) })
      .where(inArray(outbox.eventId, ids));
    log.warn("outbox relay send failed", { count: ids.length, error: String(error) });
    return { sent: 0, failed: ids.length };
  }
  await db
    .update(outbox)
    .set({ attempts: sql`${outbox.attempts} + 1`, lastAttemptAt: attemptAt, lastError: null })
    .where(inArray(outbox.eventId, ids));
  return { sent: ids.length, failed: 0 };
}

export async function outboxBacklog(db: Db): Promise<number> {
  const row = await db.select({ count: sql<number>`count(*)` }).from(outbox).where(isNull(outbox.deliveredAt)).get();
  return row?.count ?? 0;
}



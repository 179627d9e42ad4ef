/**
 * Re-sends outbox events the queue has not confirmed (no delivered_at) after a grace period — the
 * path for sends that failed or were cut off. Runs from the cron trigger. Duplicates are harmless:
 * the consumer is idempotent by event id.
 */
import { and, asc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { deadLetters, outbox } from "../../d1/schema";
import { batch, type Db } from "../lib/db";
import { log } from "../lib/log";
import type { QueueEvent, QueueEventParser } from "./envelope.schema";
import { sendEvents } from "./event-sink";
import { RELAY_GRACE_MS } from "./outbox.repo";

export { RELAY_GRACE_MS };
const RELAY_BATCH = 100;

/** `parse` knows every event type the queue carries (workers/queue-events.ts#parseQueueEvent). */
export async function relayPendingEvents(
  db: Db,
  queue: Queue,
  parse: QueueEventParser,
  now = Date.now(),
): Promise<{ sent: number; failed: number }> {
  const cutoff = new Date(now - RELAY_GRACE_MS).toISOString();
  const rows = await db
    .select({ eventId: outbox.eventId, payload: outbox.payload })
    .from(outbox)
    .where(and(isNull(outbox.deliveredAt), lt(outbox.createdAt, cutoff)))
    .orderBy(asc(outbox.createdAt))
    .limit(RELAY_BATCH)
    .all();
  if (rows.length === 0) return { sent: 0, failed: 0 };

  const attemptAt = new Date(now).toISOString();
  const events: QueueEvent[] = [];
  const ids: string[] = [];
  for (const row of rows) {
    const event = parsePayload(row.payload, parse);
    if (event) {
      events.push(event);
      ids.push(row.eventId);
    } else {
      await deadLetterRow(db, row, attemptAt);
    }
  }
  if (events.length === 0) return { sent: 0, failed: 0 };
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

function parsePayload(payload: string, parse: QueueEventParser): QueueEvent | undefined {
  try {
    const parsed = parse(JSON.parse(payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A row whose payload is not a valid event can never be sent; left in place it would be picked
 * first by every run. Keep it in dead_letters and close the outbox row, loudly.
 */
async function deadLetterRow(db: Db, row: { eventId: string; payload: string }, at: string): Promise<void> {
  await batch(db, [
    db
      .insert(deadLetters)
      .values({ queue: "outbox", messageId: row.eventId, body: row.payload, reason: "outbox payload is not a valid domain event" }),
    db.update(outbox).set({ deliveredAt: at, lastError: "dead-lettered: invalid payload" }).where(eq(outbox.eventId, row.eventId)),
  ]);
  log.error("invalid outbox payload dead-lettered", { event_id: row.eventId });
}

/**
 * The EVENTS queue consumer. Idempotent by event id: each event is recorded once in audit_log
 * (INSERT OR IGNORE) and its outbox row marked delivered, in one D1 batch per message batch of a
 * few multi-row statements.
 * A message that is not a valid event is kept in dead_letters and acknowledged (retrying cannot
 * fix it); a D1 failure retries the batch, and after max_retries the queue moves it to the DLQ.
 */
import { sql } from "drizzle-orm";
import { deadLetters } from "../../d1/schema";
import { batch, type Db, type Statement } from "../lib/db";
import { nowIso } from "../lib/clock";
import { log } from "../lib/log";
import { describeIssues } from "../lib/validation";
import type { QueueEvent, QueueEventParser } from "./envelope.schema";

export interface ConsumedMessage {
  id: string;
  body: unknown;
  ack(): void;
  retry(): void;
}

/** `parse` knows every event type the queue carries (workers/queue-events.ts#parseQueueEvent). */
export async function consumeEvents(db: Db, queue: string, messages: readonly ConsumedMessage[], parse: QueueEventParser): Promise<void> {
  const valid: { message: ConsumedMessage; event: QueueEvent }[] = [];
  const invalid: { message: ConsumedMessage; reason: string }[] = [];
  for (const message of messages) {
    const parsed = parse(message.body);
    if (parsed.success) valid.push({ message, event: parsed.data });
    else invalid.push({ message, reason: `not a domain event: ${describeIssues(parsed.error.issues)}` });
  }

  const processedAt = nowIso();
  const statements: Statement[] = [
    ...recordStatements(
      valid.map(({ event }) => event),
      processedAt,
    ),
    ...invalid.map(({ message, reason }) =>
      db.insert(deadLetters).values({ queue, messageId: message.id, body: safeStringify(message.body), reason }),
    ),
  ];
  if (statements.length === 0) return;

  try {
    await batch(db, statements);
  } catch (error) {
    log.error("event batch failed; retrying", { queue, count: messages.length, error: String(error) });
    for (const message of messages) message.retry();
    return;
  }
  for (const message of messages) message.ack();
  if (invalid.length > 0) log.warn("invalid queue messages kept in dead_letters", { queue, count: invalid.length });
}

/** D1 binds at most 100 parameters per statement: 14 audit rows × 7 columns, 99 ids. */
const AUDIT_ROWS_PER_STATEMENT = 14;
const IDS_PER_STATEMENT = 99;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Multi-row statements rather than two per event: a full batch of 50 events costs 5 statements
 * instead of 100, which matters because the consumer shares the database with every request.
 */
function recordStatements(events: readonly QueueEvent[], processedAt: string): Statement[] {
  const inserts = chunks(events, AUDIT_ROWS_PER_STATEMENT).map((rows) => {
    const values = sql.join(
      rows.map(
        (event) =>
          sql`(${event.event_id}, ${event.type}, ${event.user_id}, ${event.task_id}, ${event.occurred_at}, ${processedAt}, ${JSON.stringify(event)})`,
      ),
      sql`, `,
    );
    return sql`INSERT OR IGNORE INTO audit_log (event_id, type, user_id, task_id, occurred_at, processed_at, payload) VALUES ${values}`;
  });
  const updates = chunks(events, IDS_PER_STATEMENT).map((rows) => {
    const ids = sql.join(
      rows.map((event) => sql`${event.event_id}`),
      sql`, `,
    );
    return sql`UPDATE outbox SET delivered_at = ${processedAt} WHERE delivered_at IS NULL AND event_id IN (${ids})`;
  });
  return [...inserts, ...updates];
}

/** The dead-letter queue: whatever arrives here exhausted its retries; keep it in D1, never drop it. */
export async function consumeDeadLetters(db: Db, queue: string, messages: readonly ConsumedMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const rows = messages.map((message) => ({
    queue,
    messageId: message.id,
    body: safeStringify(message.body),
    reason: "exhausted retries on the events queue",
  }));
  await db.insert(deadLetters).values(rows);
  for (const message of messages) message.ack();
  log.error("events dead-lettered", { count: messages.length });
}

function safeStringify(body: unknown): string {
  try {
    return JSON.stringify(body) ?? String(body);
  } catch {
    return String(body);
  }
}

/**
 * The deletes of the retention (retention.cron.ts): each takes at most `limit` of the oldest rows
 * past the cutoff, through an index (audit_log_occurred_idx; outbox_pending_idx, whose first column
 * is delivered_at), so one statement touches a bounded number of rows and never scans the table.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../lib/db";

/** audit_log rows that occurred before `cutoff`, oldest first; how many went. */
export async function deleteAuditBefore(db: Db, cutoff: string, limit: number): Promise<number> {
  const oldest = sql`SELECT rowid FROM audit_log WHERE occurred_at < ${cutoff} ORDER BY occurred_at LIMIT ${limit}`;
  const result = await db.run(sql`DELETE FROM audit_log WHERE rowid IN (${oldest})`);
  return result.meta.changes;
}

/**
 * outbox rows delivered before `cutoff`, oldest first; how many went. `delivered_at < cutoff` is
 * never true of an undelivered row (NULL), so an event the queue has not confirmed always stays.
 */
export async function deleteDeliveredBefore(db: Db, cutoff: string, limit: number): Promise<number> {
  const oldest = sql`SELECT rowid FROM outbox WHERE delivered_at < ${cutoff} ORDER BY delivered_at LIMIT ${limit}`;
  const result = await db.run(sql`DELETE FROM outbox WHERE rowid IN (${oldest})`);
  return result.meta.changes;
}

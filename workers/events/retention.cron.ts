/**
 * Bounded storage (decision 0060): every cron run deletes audit_log rows and delivered outbox rows
 * older than AUDIT_RETENTION_DAYS, oldest first, in statements of at most ROWS_PER_STATEMENT rows
 * and at most STATEMENTS_PER_RUN statements per table. Each statement is its own D1 query, not one
 * batch: D1 runs one query at a time, so requests' queries run between the deletes and none waits
 * behind more than one bounded statement. A backlog larger than one run's share takes several runs.
 */
import type { Db } from "../lib/db";
import { log } from "../lib/log";
import { deleteAuditBefore, deleteDeliveredBefore } from "./retention.repo";
import { retentionCutoff, retentionDays } from "./retention-settings";

export interface RetentionBounds {
  rowsPerStatement: number;
  statementsPerRun: number;
}

/**
 * 2,000 rows a statement (about 30 ms of SQLite time with audit_log's three indexes, measured in
 * docs/scale.md), 10 a table per run: up to 20,000 rows of each table a minute, about 330 a second.
 * That outruns what any retention can hold under D1's 10 GB (at 647 bytes a call, even a 1-day
 * retention fills it past about 180 calls a second), so the deletes keep up wherever retention can.
 */
export const RETENTION_BOUNDS: RetentionBounds = { rowsPerStatement: 2000, statementsPerRun: 10 };

export interface RetentionRun {
  retentionDays: number;
  auditDeleted: number;
  outboxDeleted: number;
  /** Some table still had a full statement's worth past the cutoff: the next run goes on. */
  more: boolean;
}

async function deleteInBatches(
  remove: (limit: number) => Promise<number>,
  bounds: RetentionBounds,
): Promise<{ deleted: number; more: boolean }> {
  let deleted = 0;
  for (let statement = 0; statement < bounds.statementsPerRun; statement++) {
    const removed = await remove(bounds.rowsPerStatement);
    deleted += removed;
    if (removed < bounds.rowsPerStatement) return { deleted, more: false };
  }
  return { deleted, more: true };
}

/** One run's share of the retention. Throws on a bad AUDIT_RETENTION_DAYS, before deleting anything. */
export async function deleteExpiredEvents(
  db: Db,
  env: Partial<Pick<Env, "AUDIT_RETENTION_DAYS">>,
  now = Date.now(),
  bounds: RetentionBounds = RETENTION_BOUNDS,
): Promise<RetentionRun> {
  const days = retentionDays(env);
  const cutoff = retentionCutoff(days, now);
  const audit = await deleteInBatches((limit) => deleteAuditBefore(db, cutoff, limit), bounds);
  const outbox = await deleteInBatches((limit) => deleteDeliveredBefore(db, cutoff, limit), bounds);
  return { retentionDays: days, auditDeleted: audit.deleted, outboxDeleted: outbox.deleted, more: audit.more || outbox.more };
}

/**
 * The cron's call: one run's share, logged when it deleted something or left more for the next run.
 * Never throws — a failed delete or a bad setting is logged as an error — so the rest of the cron's
 * work is never held up by it; nothing is deleted after a failure until the next run.
 */
export async function runRetention(
  db: Db,
  env: Partial<Pick<Env, "AUDIT_RETENTION_DAYS">>,
  now = Date.now(),
): Promise<RetentionRun | undefined> {
  try {
    const run = await deleteExpiredEvents(db, env, now);
    if (run.auditDeleted > 0 || run.outboxDeleted > 0) {
      const { retentionDays: retention_days, auditDeleted: audit_deleted, outboxDeleted: outbox_deleted, more } = run;
      log.info("retention", { retention_days, audit_deleted, outbox_deleted, more });
    }
    return run;
  } catch (error) {
    log.error("retention failed", { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

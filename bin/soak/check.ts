/**
 * What the soak checks in D1 once the relay has run: every acknowledged write is there, every
 * change has exactly one outbox row, and the outbox and audit_log hold the same events — no loss,
 * no duplicate. Read with `wrangler d1 execute --local` on the soak's persisted state.
 */
import { sqlString, wrangler } from "../lib/wrangler";
import type { Ledger } from "./load";

export interface Database {
  config: string;
  persistTo: string;
}

export function query<T>(db: Database, sql: string): T[] {
  const out = wrangler(
    ["d1", "execute", "DB", "--local", "--config", db.config, "--persist-to", db.persistTo, "--json", "--command", sql],
    { quiet: true },
  );
  const [first] = JSON.parse(out) as { results: T[] }[];
  return first?.results ?? [];
}

function usersIn(names: readonly string[]): string {
  return `(SELECT id FROM users WHERE name IN (${names.map(sqlString).join(", ")}))`;
}

/** Outbox rows of the soak's users not yet confirmed by the queue consumer. */
export function undelivered(db: Database, users: readonly string[]): number {
  return (
    query<{ n: number }>(db, `SELECT count(*) AS n FROM outbox WHERE delivered_at IS NULL AND user_id IN ${usersIn(users)}`)[0]?.n ?? 0
  );
}

export interface Figures {
  tasks: number;
  unacknowledgedTasks: number;
  missingAdds: number;
  missingRenames: number;
  outbox: number;
  outboxByType: Record<string, number>;
  duplicateEvents: number;
  undelivered: number;
  audit: number;
  auditWithoutOutbox: number;
  outboxWithoutAudit: number;
  deadLetters: number;
  problems: string[];
}

interface TaskRow {
  id: number;
  title: string;
  created: number;
  updated: number;
}

export function check(db: Database, users: readonly string[], ledger: Ledger): Figures {
  const ids = usersIn(users);
  const tasks = query<TaskRow>(
    db,
    `SELECT t.id, t.title,
       (SELECT count(*) FROM outbox o WHERE o.task_id = t.id AND o.type = 'CREATED') AS created,
       (SELECT count(*) FROM outbox o WHERE o.task_id = t.id AND o.type = 'UPDATED') AS updated
     FROM tasks t WHERE t.user_id IN ${ids}`,
  );
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const problems: string[] = [];
  let missingAdds = 0;
  let missingRenames = 0;
  for (const [id, { title }] of ledger.adds) {
    const task = byId.get(id);
    if (!task || (task.title !== title && task.title !== `${title} v2`)) {
      missingAdds++;
      if (problems.length < 10) problems.push(`acknowledged task ${id} "${title}" is ${task ? `titled "${task.title}"` : "missing"}`);
    }
  }
  for (const id of ledger.renames) {
    if (!byId.get(id)?.title.endsWith(" v2")) {
      missingRenames++;
      if (problems.length < 10) problems.push(`acknowledged rename of task ${id} is missing`);
    }
  }
  // One event per change: one CREATED per task, one UPDATED exactly when the rename applied.
  let duplicateEvents = 0;
  for (const task of tasks) {
    const renamed = task.title.endsWith(" v2") ? 1 : 0;
    if (task.created !== 1 || task.updated !== renamed) {
      duplicateEvents++;
      if (problems.length < 10)
        problems.push(`task ${task.id}: ${task.created} CREATED and ${task.updated} UPDATED outbox rows (expected 1 and ${renamed})`);
    }
  }
  const byType = query<{ type: string; n: number }>(db, `SELECT type, count(*) AS n FROM outbox WHERE user_id IN ${ids} GROUP BY type`);
  const [counts] = query<{ audit: number; audit_without_outbox: number; outbox_without_audit: number; undelivered: number; dead: number }>(
    db,
    `SELECT
       (SELECT count(*) FROM audit_log WHERE user_id IN ${ids}) AS audit,
       (SELECT count(*) FROM audit_log a WHERE a.user_id IN ${ids} AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = a.event_id)) AS audit_without_outbox,
       (SELECT count(*) FROM outbox o WHERE o.user_id IN ${ids} AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.event_id = o.event_id)) AS outbox_without_audit,
       (SELECT count(*) FROM outbox WHERE user_id IN ${ids} AND delivered_at IS NULL) AS undelivered,
       (SELECT count(*) FROM dead_letters) AS dead`,
  );
  const outboxByType = Object.fromEntries(byType.map((row) => [row.type, row.n]));
  return {
    tasks: tasks.length,
    unacknowledgedTasks: tasks.filter((task) => !ledger.adds.has(task.id)).length,
    missingAdds,
    missingRenames,
    outbox: byType.reduce((sum, row) => sum + row.n, 0),
    outboxByType,
    duplicateEvents,
    undelivered: counts?.undelivered ?? -1,
    audit: counts?.audit ?? -1,
    auditWithoutOutbox: counts?.audit_without_outbox ?? -1,
    outboxWithoutAudit: counts?.outbox_without_audit ?? -1,
    deadLetters: counts?.dead ?? -1,
    problems,
  };
}

/** Whether the figures show no loss and no duplicate. */
export function passed(figures: Figures, ledger: Ledger): boolean {
  return (
    figures.missingAdds === 0 &&
    figures.missingRenames === 0 &&
    figures.duplicateEvents === 0 &&
    figures.undelivered === 0 &&
    figures.audit === figures.outbox &&
    figures.auditWithoutOutbox === 0 &&
    figures.outboxWithoutAudit === 0 &&
    figures.deadLetters === 0 &&
    ledger.serverErrors === 0
  );
}

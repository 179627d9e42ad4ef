/**
 * SQL that writes outbox rows inside the same D1 batch as the change they describe. The event
 * payload is built by SQLite from the task row itself (json_object), so the snapshot is exactly
 * what was committed, and a statement whose WHERE matches no task writes no event.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Bindable, Row } from "../lib/db";
import { type TaskEvent, taskEventSchema, type TaskEventType } from "./task-events.schema";

/** The task row `t` as the JSON object carried in events (taskSchema without `overdue`). */
const taskSnapshot = sql.raw(`json_object(
  'id', t.id, 'title', t.title, 'description', t.description, 'status', t.status,
  'priority', t.priority, 'due_date', t.due_date, 'tags', json(t.tags),
  'recurrence_pattern', t.recurrence_pattern, 'completed_at', t.completed_at,
  'created_at', t.created_at, 'updated_at', t.updated_at)`);

export interface OutboxInsert {
  eventId: Bindable<string>;
  type: Bindable<TaskEventType>;
  occurredAt: Bindable<string>;
  userId: Bindable<number>;
  /** A SQL condition on the task alias `t` that selects exactly the task the event is about. */
  where: SQL;
  /** Extra JSON merged into the payload (for example the reminder of REMINDER_DUE). */
  extra?: Record<string, unknown>;
}

/** INSERT … SELECT … RETURNING payload: one outbox row per matching task (zero or one). */
export function insertOutboxEvent(event: OutboxInsert): SQL {
  const extra = JSON.stringify(event.extra ?? {});
  return sql`INSERT OR IGNORE INTO outbox (event_id, type, user_id, task_id, payload, created_at)
    SELECT ${event.eventId}, ${event.type}, t.user_id, t.id,
      json_patch(json_object('event_id', ${event.eventId}, 'type', ${event.type}, 'version', 1,
        'occurred_at', ${event.occurredAt}, 'user_id', t.user_id, 'task_id', t.id, 'task', ${taskSnapshot}), ${extra}),
      ${event.occurredAt}
    FROM tasks t WHERE t.user_id = ${event.userId} AND (${event.where})
    RETURNING payload`;
}

/** The events a batch wrote, read back from its outbox statements' RETURNING payload rows. */
export function eventsFrom(results: readonly Row[][]): TaskEvent[] {
  const events: TaskEvent[] = [];
  for (const rows of results) {
    for (const row of rows) {
      if (typeof row["payload"] === "string") events.push(taskEventSchema.parse(JSON.parse(row["payload"])));
    }
  }
  return events;
}

/**
 * The SQL mcp-edge sends for list_tasks ({limit: 20}) and add_task, copied from what drizzle
 * generates for workers/tasks/tasks.repo.ts (listTasks, insertTask) and
 * workers/tasks/task-outbox.statements.ts (insertOutboxEvent), so the d1-floor and node-sdk peers run
 * the same queries without drizzle. If the product's queries change, re-capture them with
 * `.toSQL()` and update these strings.
 */
import type { Task } from "../../workers/tasks/tasks.schema";

const COLUMNS = `"id", "user_id", "title", "description", "status", "priority", "due_date", "tags", "recurrence_pattern", "next_occurrence_id", "completed_at", "created_at", "updated_at"`;

/** Params: user_id, limit (+1: one extra row tells whether another page exists). */
export const LIST_TASKS_SQL = `select ${COLUMNS} from "tasks" where "tasks"."user_id" = ? order by "tasks"."created_at" desc, "tasks"."id" desc limit ?`;

/** Params: user_id, title, description, status, priority, due_date, tags (JSON), recurrence_pattern, created_at, updated_at. */
export const INSERT_TASK_SQL = `insert into "tasks" (${COLUMNS}) values (null, ?, ?, ?, ?, ?, ?, ?, ?, null, null, ?, ?) returning ${COLUMNS}`;

/** Params: event_id, type, event_id, type, occurred_at, extra JSON, occurred_at, user_id, user_id. */
export const INSERT_OUTBOX_SQL = `INSERT OR IGNORE INTO outbox (event_id, type, user_id, task_id, payload, created_at)
    SELECT ?, ?, t.user_id, t.id,
      json_patch(json_object('event_id', ?, 'type', ?, 'version', 1,
        'occurred_at', ?, 'user_id', t.user_id, 'task_id', t.id, 'task', json_object(
  'id', t.id, 'title', t.title, 'description', t.description, 'status', t.status,
  'priority', t.priority, 'due_date', t.due_date, 'tags', json(t.tags),
  'recurrence_pattern', t.recurrence_pattern, 'completed_at', t.completed_at,
  'created_at', t.created_at, 'updated_at', t.updated_at)), ?),
      ?
    FROM tasks t WHERE t.user_id = ? AND (t.id = (SELECT max(id) FROM tasks WHERE user_id = ?))
    RETURNING payload`;

export interface NewTask {
  title: string;
  description: string;
  priority: Task["priority"];
  tags: string[];
}

/** Arguments of add_task as the peers accept them (the product validates more; peers trust the bench). */
export function newTaskFrom(args: Record<string, unknown>): NewTask {
  const title = typeof args["title"] === "string" ? args["title"] : "untitled";
  const priority = args["priority"];
  return {
    title,
    description: typeof args["description"] === "string" ? args["description"] : title,
    priority: priority === "low" || priority === "medium" || priority === "high" ? priority : "none",
    tags: Array.isArray(args["tags"]) ? args["tags"].filter((tag): tag is string => typeof tag === "string") : [],
  };
}

export function insertTaskParams(userId: number, task: NewTask, occurredAt: string): (string | number | null)[] {
  return [userId, task.title, task.description, "pending", task.priority, null, JSON.stringify(task.tags), null, occurredAt, occurredAt];
}

export function insertOutboxParams(userId: number, eventId: string, occurredAt: string): (string | number)[] {
  return [eventId, "CREATED", eventId, "CREATED", occurredAt, "{}", occurredAt, userId, userId];
}

/**
 * A `RETURNING` / select row, column names as in SQL. A type alias, not an interface, so that it
 * is assignable to node:sqlite's `Record<string, SQLOutputValue>` rows.
 */
export type TaskRow = {
  id: number;
  title: string;
  description: string;
  status: Task["status"];
  priority: Task["priority"];
  due_date: string | null;
  tags: string;
  recurrence_pattern: Task["recurrence_pattern"];
  completed_at: string | null;
  created_at: string;
  updated_at: string;
};

/** The same mapping as toTask in workers/tasks/tasks.service.ts, from raw SQL rows. */
export function toTask(row: TaskRow, now: string): Task {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    due_date: row.due_date,
    tags: JSON.parse(row.tags) as string[],
    recurrence_pattern: row.recurrence_pattern,
    completed_at: row.completed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    overdue: row.status === "pending" && row.due_date !== null && row.due_date < now,
  };
}

/**
 * The D1 schema, the single source drizzle-kit generates migrations from.
 * Timestamps are ISO 8601 UTC strings: they sort as text and read well in SQL.
 * docs/storage.md describes every table; keep the two in step.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  createdAt: text("created_at").notNull().default(now),
});

/** Only a SHA-256 of each token is stored; the token itself is shown once, at creation. */
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    label: text("label").notNull().default(""),
    createdAt: text("created_at").notNull().default(now),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("api_tokens_hash_idx").on(t.tokenHash)],
);

export const tasks = sqliteTable(
  "tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull(),
    status: text("status", { enum: ["pending", "completed"] }).notNull().default("pending"),
    priority: text("priority", { enum: ["none", "low", "medium", "high"] }).notNull().default("none"),
    dueDate: text("due_date"),
    /** JSON array of strings, trimmed and de-duplicated by the service. */
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    recurrencePattern: text("recurrence_pattern", { enum: ["daily", "weekly", "monthly"] }),
    /** Set once a completed recurring task has spawned its next occurrence, so re-completing never spawns twice. */
    nextOccurrenceId: integer("next_occurrence_id"),
    completedAt: text("completed_at"),
    createdAt: text("created_at").notNull().default(now),
    updatedAt: text("updated_at").notNull().default(now),
  },
  (t) => [
    index("tasks_user_created_idx").on(t.userId, t.createdAt),
    index("tasks_user_status_idx").on(t.userId, t.status),
    index("tasks_user_due_idx").on(t.userId, t.dueDate),
  ],
);

export const reminders = sqliteTable(
  "reminders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    taskId: integer("task_id").notNull().references(() => tasks.id, { onDelete: "cascade" }),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    remindAt: text("remind_at").notNull(),
    createdAt: text("created_at").notNull().default(now),
    sentAt: text("sent_at"),
  },
  (t) => [index("reminders_due_idx").on(t.sentAt, t.remindAt), index("reminders_task_idx").on(t.taskId)],
);

/**
 * Transactional outbox: every domain event is inserted in the same D1 batch as the change it
 * describes. A row stays undelivered until the queue consumer has recorded it in audit_log.
 */
export const outbox = sqliteTable(
  "outbox",
  {
    eventId: text("event_id").primaryKey(),
    type: text("type").notNull(),
    userId: integer("user_id").notNull(),
    taskId: integer("task_id"),
    payload: text("payload").notNull(),
    createdAt: text("created_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastAttemptAt: text("last_attempt_at"),
    lastError: text("last_error"),
    deliveredAt: text("delivered_at"),
  },
  (t) => [index("outbox_pending_idx").on(t.deliveredAt, t.createdAt)],
);

/** What the consumer has processed, keyed by event id: replays are no-ops. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    eventId: text("event_id").primaryKey(),
    type: text("type").notNull(),
    userId: integer("user_id").notNull(),
    taskId: integer("task_id"),
    occurredAt: text("occurred_at").notNull(),
    processedAt: text("processed_at").notNull().default(now),
    payload: text("payload").notNull(),
  },
  (t) => [index("audit_log_user_idx").on(t.userId, t.occurredAt)],
);

/** Queue messages that exhausted their retries or could not be parsed: kept, never dropped. */
export const deadLetters = sqliteTable("dead_letters", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  queue: text("queue").notNull(),
  messageId: text("message_id").notNull(),
  body: text("body").notNull(),
  reason: text("reason").notNull(),
  receivedAt: text("received_at").notNull().default(now),
});

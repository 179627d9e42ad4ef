/**
 * D1 access for tasks and reminders. Every query is scoped by user id, so another user's task is
 * indistinguishable from a missing one. Each write is one atomic D1 batch that also writes the
 * outbox rows for the events it causes; reads are one query.
 */
import { and, asc, desc, eq, isNotNull, isNull, or, type Placeholder, type SQL, sql } from "drizzle-orm";
import { tasksFts } from "../../d1/fts";
import { reminders, tasks } from "../../d1/schema";
import { batch, CompiledStatement, type Db, type Row } from "../lib/db";
import { eventsFrom, insertOutboxEvent } from "./task-outbox.statements";
import type { TaskEventType } from "./task-events.schema";

export type TaskRow = typeof tasks.$inferSelect;
export type TaskInsert = Omit<typeof tasks.$inferInsert, "id" | "userId">;
export type ReminderRow = typeof reminders.$inferSelect;
export type TaskPatch = Partial<
  Pick<TaskRow, "title" | "description" | "priority" | "dueDate" | "tags" | "recurrencePattern" | "status" | "completedAt">
>;

export interface TaskFilter {
  status: "all" | "pending" | "completed";
  priority?: TaskRow["priority"] | undefined;
  tags: string[];
  search?: string | undefined;
}

export type SortKey = "created" | "due_date" | "priority" | "title";

export interface EventSpec {
  type: TaskEventType;
  eventId: string;
  occurredAt: string;
}

const priorityRank = sql`CASE ${tasks.priority} WHEN 'high' THEN 0 WHEN 'medium' THEN 1 WHEN 'low' THEN 2 ELSE 3 END`;

const ORDER_BY: Record<SortKey, SQL[]> = {
  created: [desc(tasks.createdAt), desc(tasks.id)],
  due_date: [sql`${tasks.dueDate} IS NULL`, asc(tasks.dueDate), asc(tasks.id)],
  priority: [priorityRank, desc(tasks.createdAt), desc(tasks.id)],
  title: [sql`${tasks.title} COLLATE NOCASE`, asc(tasks.id)],
};

function hasTag(tag: string | Placeholder): SQL {
  return sql`EXISTS (SELECT 1 FROM json_each(${tasks.tags}) WHERE json_each.value = ${tag})`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function filterConditions(userId: number, filter: TaskFilter): SQL[] {
  const conditions: SQL[] = [eq(tasks.userId, userId)];
  if (filter.status !== "all") conditions.push(eq(tasks.status, filter.status));
  if (filter.priority) conditions.push(eq(tasks.priority, filter.priority));
  for (const tag of filter.tags) conditions.push(hasTag(tag));
  if (filter.search) {
    const pattern = `%${escapeLike(filter.search)}%`;
    conditions.push(or(sql`${tasks.title} LIKE ${pattern} ESCAPE '\\'`, sql`${tasks.description} LIKE ${pattern} ESCAPE '\\'`)!);
  }
  return conditions;
}

/**
 * A `RETURNING *` row of a raw statement: column names as in SQL, tags still JSON text. A type
 * alias (not an interface) so a D1 `Row` narrows to it directly: the statements are ours.
 */
type RawTaskRow = {
  id: number;
  user_id: number;
  title: string;
  description: string;
  status: TaskRow["status"];
  priority: TaskRow["priority"];
  due_date: string | null;
  tags: string;
  recurrence_pattern: TaskRow["recurrencePattern"];
  next_occurrence_id: number | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
};

function fromRawTask(raw: RawTaskRow): TaskRow {
  return {
    id: raw.id,
    userId: raw.user_id,
    title: raw.title,
    description: raw.description,
    status: raw.status,
    priority: raw.priority,
    dueDate: raw.due_date,
    tags: JSON.parse(raw.tags) as string[],
    recurrencePattern: raw.recurrence_pattern,
    nextOccurrenceId: raw.next_occurrence_id,
    completedAt: raw.completed_at,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
  };
}

function firstTask(rows: Row[] | undefined): TaskRow | undefined {
  const row = rows?.[0];
  return row ? fromRawTask(row as RawTaskRow) : undefined;
}

export async function findTask(db: Db, userId: number, taskId: number): Promise<TaskRow | undefined> {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, taskId), eq(tasks.userId, userId)))
    .get();
}

/**
 * list_tasks is the hottest read: its query is prepared once per isolate for each filter shape
 * (which filters are present, how many tags, which order) and only bound per call.
 */
const listQueries = new WeakMap<Db, Map<string, ReturnType<typeof prepareList>>>();

function prepareList(db: Db, shape: { status: boolean; priority: boolean; tags: number; search: boolean }, sort: SortKey) {
  const conditions: SQL[] = [eq(tasks.userId, sql.placeholder("userId"))];
  if (shape.status) conditions.push(eq(tasks.status, sql.placeholder("status")));
  if (shape.priority) conditions.push(eq(tasks.priority, sql.placeholder("priority")));
  for (let i = 0; i < shape.tags; i++) conditions.push(hasTag(sql.placeholder(`tag${i}`)));
  if (shape.search) {
    const pattern = sql.placeholder("pattern");
    conditions.push(or(sql`${tasks.title} LIKE ${pattern} ESCAPE '\\'`, sql`${tasks.description} LIKE ${pattern} ESCAPE '\\'`)!);
  }
  return db
    .select()
    .from(tasks)
    .where(and(...conditions))
    .orderBy(...ORDER_BY[sort])
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare();
}

export async function listTasks(
  db: Db,
  userId: number,
  filter: TaskFilter,
  sort: SortKey,
  limit: number,
  offset: number,
): Promise<TaskRow[]> {
  const shape = { status: filter.status !== "all", priority: !!filter.priority, tags: filter.tags.length, search: !!filter.search };
  const key = `${sort}|${+shape.status}|${+shape.priority}|${shape.tags}|${+shape.search}`;
  let byShape = listQueries.get(db);
  if (!byShape) listQueries.set(db, (byShape = new Map()));
  let query = byShape.get(key);
  if (!query) byShape.set(key, (query = prepareList(db, shape, sort)));
  const values: Record<string, unknown> = { userId, status: filter.status, priority: filter.priority, limit, offset };
  filter.tags.forEach((tag, i) => (values[`tag${i}`] = tag));
  if (filter.search) values["pattern"] = `%${escapeLike(filter.search)}%`;
  return query.all(values);
}

export async function searchTasks(
  db: Db,
  userId: number,
  ftsQuery: string,
  filter: Omit<TaskFilter, "status" | "search">,
  limit: number,
): Promise<(TaskRow & { rank: number })[]> {
  const rank = sql<number>`bm25(tasks_fts)`;
  const rows = await db
    .select({ task: tasks, rank })
    .from(tasksFts)
    .innerJoin(tasks, eq(tasks.id, tasksFts.rowid))
    .where(and(sql`tasks_fts MATCH ${ftsQuery}`, ...filterConditions(userId, { ...filter, status: "all" })))
    .orderBy(rank)
    .limit(limit)
    .all();
  return rows.map((row) => ({ ...row.task, rank: row.rank }));
}

export async function recurringTasks(db: Db, userId: number, pattern: TaskRow["recurrencePattern"] | undefined) {
  return db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.userId, userId),
        eq(tasks.status, "pending"),
        pattern ? eq(tasks.recurrencePattern, pattern) : isNotNull(tasks.recurrencePattern),
      ),
    )
    .orderBy(sql`${tasks.dueDate} IS NULL`, asc(tasks.dueDate), asc(tasks.id))
    .all();
}

export async function taskStats(db: Db, userId: number, now: string) {
  return db
    .select({
      total: sql<number>`count(*)`,
      completed: sql<number>`coalesce(sum(${tasks.status} = 'completed'), 0)`,
      overdue: sql<number>`coalesce(sum(${tasks.status} = 'pending' AND ${tasks.dueDate} < ${now}), 0)`,
      high: sql<number>`coalesce(sum(${tasks.priority} = 'high'), 0)`,
      medium: sql<number>`coalesce(sum(${tasks.priority} = 'medium'), 0)`,
      low: sql<number>`coalesce(sum(${tasks.priority} = 'low'), 0)`,
      none: sql<number>`coalesce(sum(${tasks.priority} = 'none'), 0)`,
    })
    .from(tasks)
    .where(eq(tasks.userId, userId))
    .get();
}

/** add_task's two statements, compiled once: the insert and its CREATED event. */
const insertTaskStatement = new CompiledStatement(
  () => sql`INSERT INTO tasks (user_id, title, description, priority, due_date, tags, recurrence_pattern, created_at, updated_at)
    VALUES (${sql.placeholder("userId")}, ${sql.placeholder("title")}, ${sql.placeholder("description")}, ${sql.placeholder("priority")},
      ${sql.placeholder("dueDate")}, ${sql.placeholder("tags")}, ${sql.placeholder("recurrencePattern")}, ${sql.placeholder("occurredAt")}, ${sql.placeholder("occurredAt")})
    RETURNING *`,
);
const insertedTaskEvent = new CompiledStatement(() =>
  insertOutboxEvent({
    eventId: sql.placeholder("eventId"),
    type: sql.placeholder("type"),
    occurredAt: sql.placeholder("occurredAt"),
    userId: sql.placeholder("userId"),
    // AUTOINCREMENT ids only grow and the batch is one transaction: the user's newest row is ours.
    where: sql`t.id = (SELECT max(id) FROM tasks WHERE user_id = ${sql.placeholder("userId")})`,
  }),
);

export async function insertTask(db: Db, userId: number, values: TaskInsert, event: EventSpec) {
  const [inserted, outboxRows] = await batch(db, [
    insertTaskStatement.bind({
      userId,
      title: values.title,
      description: values.description,
      priority: values.priority ?? "none",
      dueDate: values.dueDate ?? null,
      tags: JSON.stringify(values.tags ?? []),
      recurrencePattern: values.recurrencePattern ?? null,
      occurredAt: event.occurredAt,
    }),
    insertedTaskEvent.bind({ ...event, userId }),
  ]);
  return { task: firstTask(inserted), events: eventsFrom([outboxRows!]) };
}

/**
 * Applies `patch` to the user's task. With `expectedUpdatedAt` the write is a compare-and-set:
 * it applies only if nobody changed the task since it was read (the caller retries otherwise).
 */
export async function updateTask(db: Db, userId: number, taskId: number, patch: TaskPatch, event: EventSpec, expectedUpdatedAt?: string) {
  const guard = [eq(tasks.id, taskId), eq(tasks.userId, userId)];
  if (expectedUpdatedAt !== undefined) guard.push(eq(tasks.updatedAt, expectedUpdatedAt));
  const [updated, outboxRows] = await batch(db, [
    db
      .update(tasks)
      .set({ ...patch, updatedAt: event.occurredAt })
      .where(and(...guard))
      .returning(),
    // changes(): only if the update above applied (another write may share its updated_at).
    insertOutboxEvent({ ...event, userId, where: sql`changes() > 0 AND t.id = ${taskId} AND t.updated_at = ${event.occurredAt}` }),
  ]);
  return { task: firstTask(updated), events: eventsFrom([outboxRows!]) };
}

/**
 * Merges tags into the task's own, keeping existing order and dropping duplicates, in SQL. Nothing
 * is written if the result would exceed `maxTags`; the task then comes back undefined, as when missing.
 */
export async function mergeTags(db: Db, userId: number, taskId: number, newTags: string[], maxTags: number, event: EventSpec) {
  const merged = sql`(SELECT json_group_array(value) FROM (
      SELECT value FROM (
        SELECT value, key AS pos FROM json_each(${tasks.tags})
        UNION ALL SELECT value, 1000000 + key FROM json_each(${JSON.stringify(newTags)})
      ) GROUP BY value ORDER BY min(pos)))`;
  const [updated, outboxRows] = await batch(db, [
    sql`UPDATE tasks SET tags = ${merged}, updated_at = ${event.occurredAt}
      WHERE id = ${taskId} AND user_id = ${userId} AND json_array_length(${merged}) <= ${maxTags} RETURNING *`,
    // changes(): only if the update above applied (another write may share its updated_at).
    insertOutboxEvent({ ...event, userId, where: sql`changes() > 0 AND t.id = ${taskId} AND t.updated_at = ${event.occurredAt}` }),
  ]);
  return { task: firstTask(updated), events: eventsFrom([outboxRows!]) };
}

export async function deleteTask(db: Db, userId: number, taskId: number, event: EventSpec) {
  // The event is written first, from the row as it was; the delete then removes the row.
  const [outboxRows, deleted] = await batch(db, [
    insertOutboxEvent({ ...event, userId, where: sql`t.id = ${taskId}` }),
    db
      .delete(tasks)
      .where(and(eq(tasks.id, taskId), eq(tasks.userId, userId)))
      .returning(),
  ]);
  return { task: firstTask(deleted), events: eventsFrom([outboxRows!]) };
}

/**
 * Marks a task completed (or pending again) and, for a recurring task completed for the first
 * time, creates its next occurrence, all in one batch guarded by `expectedUpdatedAt`.
 */
export async function setCompletion(
  db: Db,
  userId: number,
  current: TaskRow,
  patch: Pick<TaskRow, "status" | "completedAt">,
  event: EventSpec,
  next?: { values: TaskInsert; event: EventSpec },
) {
  const guard = and(eq(tasks.id, current.id), eq(tasks.userId, userId), eq(tasks.updatedAt, current.updatedAt));
  const applied = sql`t.id = ${current.id} AND t.updated_at = ${event.occurredAt}`;
  // A concurrent request can have written the same updated_at (workerd's clock only moves on I/O),
  // so `applied` alone can match a write that was not ours. changes() is the row count of the
  // batch's previous statement: each event below is written only if our own guarded write applied.
  const completion = db
    .update(tasks)
    .set({ ...patch, updatedAt: event.occurredAt })
    .where(guard)
    .returning();
  const completionEvent = insertOutboxEvent({ ...event, userId, where: sql`${applied} AND changes() > 0` });
  if (!next) {
    const [updated, outboxRows] = await batch(db, [completion, completionEvent]);
    return { task: firstTask(updated), next: undefined, events: eventsFrom([outboxRows!]) };
  }
  const nextValues = { ...next.values, userId };
  const [updated, outboxRows, created, linked, createdEvents] = await batch(db, [
    completion,
    completionEvent,
    // Each statement below only acts if the guarded completion above applied.
    sql`INSERT INTO tasks (user_id, title, description, status, priority, due_date, tags, recurrence_pattern, created_at, updated_at)
      SELECT ${nextValues.userId}, ${nextValues.title}, ${nextValues.description}, 'pending', ${nextValues.priority ?? "none"},
        ${nextValues.dueDate ?? null}, ${JSON.stringify(nextValues.tags ?? [])}, ${nextValues.recurrencePattern ?? null},
        ${next.event.occurredAt}, ${next.event.occurredAt}
      WHERE EXISTS (SELECT 1 FROM tasks t WHERE ${applied} AND t.next_occurrence_id IS NULL)
      RETURNING *`,
    db
      .update(tasks)
      .set({ nextOccurrenceId: sql`(SELECT max(id) FROM tasks WHERE user_id = ${userId})` })
      .where(and(eq(tasks.id, current.id), eq(tasks.updatedAt, event.occurredAt), isNull(tasks.nextOccurrenceId)))
      .returning({ nextOccurrenceId: tasks.nextOccurrenceId }),
    insertOutboxEvent({
      ...next.event,
      userId,
      where: sql`changes() > 0 AND t.id = (SELECT next_occurrence_id FROM tasks WHERE id = ${current.id} AND updated_at = ${event.occurredAt})`,
    }),
  ]);
  const nextTask = linked!.length > 0 ? firstTask(created) : undefined;
  return { task: firstTask(updated), next: nextTask, events: eventsFrom([outboxRows!, createdEvents!]) };
}

export async function insertReminder(db: Db, userId: number, taskId: number, remindAt: string) {
  const [inserted, task] = await batch(db, [
    sql`INSERT INTO reminders (task_id, user_id, remind_at)
      SELECT id, user_id, ${remindAt} FROM tasks WHERE id = ${taskId} AND user_id = ${userId}
      RETURNING id, task_id, remind_at, sent_at, created_at`,
    sql`SELECT * FROM tasks WHERE id = ${taskId} AND user_id = ${userId}`,
  ]);
  const reminder = inserted![0] as
    { id: number; task_id: number; remind_at: string; sent_at: string | null; created_at: string } | undefined;
  return { reminder, task: firstTask(task) };
}

export async function remindersForTask(db: Db, userId: number, taskId: number): Promise<ReminderRow[]> {
  return db
    .select()
    .from(reminders)
    .where(and(eq(reminders.taskId, taskId), eq(reminders.userId, userId)))
    .orderBy(asc(reminders.remindAt))
    .all();
}

/**
 * The task domain: every rule about tasks lives here, once, for the MCP tools and the REST API
 * alike. It knows nothing of HTTP or MCP; it takes validated input and the authenticated user id.
 */
import { AppError } from "../lib/errors";
import { isStorableInstant, nowIso } from "../lib/clock";
import { decodeCursor, encodeCursor } from "../lib/cursor";
import type { Db } from "../lib/db";
import type { TaskEventType } from "./task-events.schema";
import type { EventSink } from "../events/event-sink";
import { addPeriod } from "./recurrence";
import * as repo from "./tasks.repo";
import {
  type AddTaskInput,
  MAX_TAGS,
  type Analytics,
  type ListTasksInput,
  parseTagFilter,
  type Reminder,
  type SearchTasksInput,
  type Task,
  type UpdateFields,
} from "./tasks.schema";

export interface TaskServiceDeps {
  db: Db;
  events: EventSink;
}

/** Compare-and-set attempts for read-modify-write changes before giving up with `conflict`. */
const MAX_CAS_ATTEMPTS = 3;
/** A reminder a little in the past (clock skew, slow typing) is still accepted and fires at once. */
const REMINDER_PAST_TOLERANCE_MS = 60_000;

export function toTask(row: repo.TaskRow, now = nowIso()): Task {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    due_date: row.dueDate,
    tags: row.tags,
    recurrence_pattern: row.recurrencePattern,
    completed_at: row.completedAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    overdue: row.status === "pending" && row.dueDate !== null && row.dueDate < now,
  };
}

function event(type: TaskEventType, occurredAt = nowIso()): repo.EventSpec {
  return { type, eventId: crypto.randomUUID(), occurredAt };
}

/** A timestamp strictly after `previous`, so a compare-and-set on updated_at always sees a change. */
function laterThan(previous: string): string {
  const now = nowIso();
  return now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
}

/** Words of a free-text query as an FTS5 expression: each word quoted (no operator injection), prefix-matched, OR-ed and ranked by bm25. */
export function toFtsQuery(query: string): string {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) throw AppError.invalid("query: contains no searchable words", "query");
  return words
    .slice(0, 16)
    .map((word) => `"${word}"*`)
    .join(" OR ");
}

export class TaskService {
  constructor(private readonly deps: TaskServiceDeps) {}

  private get db(): Db {
    return this.deps.db;
  }

  private notFound(taskId: number): AppError {
    return AppError.notFound("Task", taskId);
  }

  async add(userId: number, input: AddTaskInput): Promise<Task> {
    const { task, events } = await repo.insertTask(
      this.db,
      userId,
      {
        title: input.title,
        description: input.description ?? input.title,
        priority: input.priority,
        dueDate: input.due_date ?? null,
        tags: input.tags,
        recurrencePattern: input.recurrence_pattern ?? null,
      },
      event("CREATED"),
    );
    if (!task) throw new AppError("internal", "The task could not be saved");
    this.deps.events.publish(events);
    return toTask(task);
  }

  async get(userId: number, taskId: number): Promise<Task> {
    const row = await repo.findTask(this.db, userId, taskId);
    if (!row) throw this.notFound(taskId);
    return toTask(row);
  }

  async list(userId: number, input: ListTasksInput) {
    const offset = decodeCursor(input.cursor, "list_tasks");
    const filter = { status: input.status, priority: input.priority, tags: parseTagFilter(input.tags), search: input.search };
    // One row more than asked tells whether another page exists, without a count query.
    const rows = await repo.listTasks(this.db, userId, filter, input.sort_by, input.limit + 1, offset);
    const page = rows.slice(0, input.limit);
    const now = nowIso();
    return {
      tasks: page.map((row) => toTask(row, now)),
      count: page.length,
      next_cursor: rows.length > input.limit ? encodeCursor(offset + input.limit) : null,
    };
  }

  async update(userId: number, taskId: number, fields: UpdateFields): Promise<Task> {
    const patch: repo.TaskPatch = {};
    if (fields.title !== undefined) patch.title = fields.title;
    if (fields.description !== undefined) patch.description = fields.description;
    if (fields.priority !== undefined) patch.priority = fields.priority;
    if (fields.due_date !== undefined) patch.dueDate = fields.due_date;
    if (fields.tags !== undefined) patch.tags = fields.tags;
    if (fields.recurrence_pattern !== undefined) patch.recurrencePattern = fields.recurrence_pattern;
    if (Object.keys(patch).length === 0) {
      throw AppError.invalid("Nothing to update: give at least one of title, description, priority, due_date, tags, recurrence_pattern");
    }
    const { task, events } = await repo.updateTask(this.db, userId, taskId, patch, event("UPDATED"));
    if (!task) throw this.notFound(taskId);
    this.deps.events.publish(events);
    return toTask(task);
  }

  async setPriority(userId: number, taskId: number, priority: Task["priority"]): Promise<Task> {
    return this.update(userId, taskId, { priority });
  }

  async addTags(userId: number, taskId: number, tags: string[]): Promise<Task> {
    const { task, events } = await repo.mergeTags(this.db, userId, taskId, tags, MAX_TAGS, event("UPDATED"));
    if (!task) {
      if (!(await repo.findTask(this.db, userId, taskId))) throw this.notFound(taskId);
      throw AppError.invalid(`tags: a task can carry at most ${MAX_TAGS} tags`, "tags");
    }
    this.deps.events.publish(events);
    return toTask(task);
  }

  async delete(userId: number, taskId: number): Promise<Task> {
    const { task, events } = await repo.deleteTask(this.db, userId, taskId, event("DELETED"));
    if (!task) throw this.notFound(taskId);
    this.deps.events.publish(events);
    return toTask(task);
  }

  /** Toggles completion. Completing a recurring task creates its next occurrence, one period later. */
  async toggleComplete(userId: number, taskId: number): Promise<{ task: Task; next_occurrence: Task | null }> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await repo.findTask(this.db, userId, taskId);
      if (!current) throw this.notFound(taskId);
      const occurredAt = laterThan(current.updatedAt);
      const completing = current.status === "pending";
      const patch = completing
        ? { status: "completed" as const, completedAt: occurredAt }
        : { status: "pending" as const, completedAt: null };
      const nextDue = current.recurrencePattern === null ? null : addPeriod(current.dueDate ?? occurredAt, current.recurrencePattern);
      // A series whose next occurrence would fall past the storable range ends with this one.
      const spawnsNext = completing && nextDue !== null && isStorableInstant(nextDue) && current.nextOccurrenceId === null;
      const next = spawnsNext
        ? {
            values: {
              title: current.title,
              description: current.description,
              priority: current.priority,
              tags: current.tags,
              recurrencePattern: current.recurrencePattern,
              dueDate: nextDue,
            },
            event: event("CREATED", occurredAt),
          }
        : undefined;
      const result = await repo.setCompletion(
        this.db,
        userId,
        current,
        patch,
        event(completing ? "COMPLETED" : "UPDATED", occurredAt),
        next,
      );
      if (!result.task) continue; // changed under us: read again and retry
      this.deps.events.publish(result.events);
      return { task: toTask(result.task), next_occurrence: result.next ? toTask(result.next) : null };
    }
    throw new AppError("conflict", `Task ${taskId} is being changed by another request; try again`);
  }

  async search(userId: number, input: SearchTasksInput) {
    const rows = await repo.searchTasks(
      this.db,
      userId,
      toFtsQuery(input.query),
      { priority: input.priority, tags: parseTagFilter(input.tags) },
      input.limit,
    );
    const now = nowIso();
    return { tasks: rows.map((row) => ({ ...toTask(row, now), rank: row.rank })), count: rows.length };
  }

  async scheduleReminder(userId: number, taskId: number, reminderTime: string): Promise<{ reminder: Reminder; task: Task }> {
    if (Date.parse(reminderTime) < Date.now() - REMINDER_PAST_TOLERANCE_MS) {
      throw AppError.invalid("reminder_time: must be in the future", "reminder_time");
    }
    const { reminder, task } = await repo.insertReminder(this.db, userId, taskId, reminderTime);
    if (!reminder || !task) throw this.notFound(taskId);
    return {
      reminder: {
        id: reminder.id,
        task_id: reminder.task_id,
        reminder_time: reminder.remind_at,
        sent_at: reminder.sent_at,
        created_at: reminder.created_at,
      },
      task: toTask(task),
    };
  }

  async reminders(userId: number, taskId: number): Promise<Reminder[]> {
    const [task, rows] = await Promise.all([repo.findTask(this.db, userId, taskId), repo.remindersForTask(this.db, userId, taskId)]);
    if (!task) throw this.notFound(taskId);
    return rows.map((row) => ({
      id: row.id,
      task_id: row.taskId,
      reminder_time: row.remindAt,
      sent_at: row.sentAt,
      created_at: row.createdAt,
    }));
  }

  async recurring(userId: number, pattern: Task["recurrence_pattern"] | undefined) {
    const rows = await repo.recurringTasks(this.db, userId, pattern ?? undefined);
    const now = nowIso();
    return { tasks: rows.map((row) => toTask(row, now)), count: rows.length };
  }

  async analytics(userId: number): Promise<Analytics> {
    const stats = await repo.taskStats(this.db, userId, nowIso());
    const total = stats?.total ?? 0;
    const completed = stats?.completed ?? 0;
    return {
      total,
      completed,
      pending: total - completed,
      completion_rate: total === 0 ? 0 : Math.round((completed / total) * 10_000) / 10_000,
      overdue: stats?.overdue ?? 0,
      by_priority: { high: stats?.high ?? 0, medium: stats?.medium ?? 0, low: stats?.low ?? 0, none: stats?.none ?? 0 },
    };
  }
}

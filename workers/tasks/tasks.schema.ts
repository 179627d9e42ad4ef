/**
 * Field schemas for tasks, shared by the MCP tools, the REST routes and /openapi.json, so the
 * three can never disagree. Argument names follow the original task-tool specification.
 * No schema here takes a user id: the user always comes from authentication.
 */
import * as z from "zod";
import { EARLIEST_STORABLE, isStorableInstant, LATEST_STORABLE } from "../lib/clock";

export const PRIORITIES = ["none", "low", "medium", "high"] as const;
export const RECURRENCE_PATTERNS = ["daily", "weekly", "monthly"] as const;
export type RecurrencePattern = (typeof RECURRENCE_PATTERNS)[number];
export const STATUS_FILTERS = ["all", "pending", "completed"] as const;
export const SORT_KEYS = ["created", "due_date", "priority", "title"] as const;

export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 50;
/** Separates tags in the tags filter (`tags=work,home`), so no tag may contain it (decision 0025). */
export const TAG_SEPARATOR = ",";

const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();

/**
 * A date (`2026-12-01`, read as midnight UTC) or a date-time with a zone; stored as UTC ISO, and
 * only inside the storable range (lib/clock.ts): `9999-12-31T23:59:59-23:59` is a valid string
 * but names an instant in the year 10000.
 */
const isoInstant = z
  .union([isoDateTime, isoDate], {
    error: "must be an ISO 8601 date (2026-12-01) or date-time with a time zone (2026-12-01T17:00:00Z)",
  })
  .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value).toISOString())
  .refine(isStorableInstant, `must be between ${EARLIEST_STORABLE} and ${LATEST_STORABLE} (UTC)`);

export const fields = {
  task_id: z.int().positive().max(Number.MAX_SAFE_INTEGER).describe("The task's numeric id, as shown by list_tasks"),
  title: z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters").describe("Short title, 1–200 characters"),
  description: z.string().max(5000, "must be at most 5000 characters").describe("Longer details; defaults to the title"),
  due_date: isoInstant.describe(
    "Due date, ISO 8601: a date (2026-12-01) or a date-time with zone (2026-12-01T17:00:00Z), up to 9999-12-31T23:59:59.999Z (UTC)",
  ),
  priority: z.enum(PRIORITIES).describe("Priority: high, medium, low or none"),
  tags: z
    .array(
      z
        .string()
        .max(MAX_TAG_LENGTH, `each tag must be at most ${MAX_TAG_LENGTH} characters`)
        .refine((tag) => !tag.includes(TAG_SEPARATOR), "must not contain a comma (the tags filter separates tags with commas)"),
    )
    .max(MAX_TAGS, `at most ${MAX_TAGS} tags`)
    .transform(normalizeTags)
    .describe(
      "Labels; trimmed, empty ones dropped, duplicates removed; a tag may not contain a comma (commas separate tags in the tags filter)",
    ),
  recurrence_pattern: z.enum(RECURRENCE_PATTERNS).describe("Repeat daily, weekly or monthly; omit for a one-time task"),
  status: z.enum(STATUS_FILTERS).describe("Which tasks: all, pending or completed"),
  sort_by: z.enum(SORT_KEYS).describe("Order: created (newest first), due_date (soonest first), priority (highest first) or title"),
  search: z.string().trim().max(200).describe("Only tasks whose title or description contains this text"),
  tag_filter: z
    .string()
    .max(MAX_TAGS * (MAX_TAG_LENGTH + 1))
    .describe("Comma-separated tags (work,home); only tasks carrying all of them"),
  query: z.string().trim().min(1, "must not be empty").max(200).describe("Words to search for in titles and descriptions"),
  reminder_time: isoInstant.describe("When to remind, ISO 8601 date-time with zone, in the future, up to 9999-12-31T23:59:59.999Z (UTC)"),
  limit: z.int().min(1).max(100).describe("How many tasks to return, 1–100"),
  cursor: z.string().max(200).describe("Opaque cursor from a previous page's next_cursor"),
};

export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = raw.trim();
    if (tag.length > 0) seen.add(tag);
  }
  return [...seen];
}

/** "work, home,,work" → ["work", "home"] */
export function parseTagFilter(value: string | undefined): string[] {
  return value === undefined ? [] : normalizeTags(value.split(TAG_SEPARATOR));
}

// ---- inputs -------------------------------------------------------------------------------

export const addTaskInput = z.object({
  title: fields.title,
  description: fields.description.optional(),
  due_date: fields.due_date.optional(),
  priority: fields.priority.default("none"),
  tags: fields.tags.default([]),
  recurrence_pattern: fields.recurrence_pattern.optional(),
});

export const taskIdInput = z.object({ task_id: fields.task_id });

export const listTasksInput = z.object({
  status: fields.status.default("all"),
  priority: fields.priority.optional(),
  tags: fields.tag_filter.optional(),
  sort_by: fields.sort_by.default("created"),
  search: fields.search.optional(),
  limit: fields.limit.default(50),
  cursor: fields.cursor.optional(),
});

/** `null` clears an optional field (due date, recurrence). At least one field must be given. */
export const updateFields = z.object({
  title: fields.title.optional(),
  description: fields.description.optional(),
  priority: fields.priority.optional(),
  due_date: fields.due_date.nullable().optional(),
  tags: fields.tags.optional(),
  recurrence_pattern: fields.recurrence_pattern.nullable().optional(),
});

export const updateTaskInput = z.object({ task_id: fields.task_id, ...updateFields.shape });

export const setPriorityInput = z.object({ task_id: fields.task_id, priority: fields.priority });

export const addTagsInput = z.object({
  task_id: fields.task_id,
  tags: fields.tags.refine((tags) => tags.length > 0, "give at least one non-empty tag"),
});

export const searchTasksInput = z.object({
  query: fields.query,
  priority: fields.priority.optional(),
  tags: fields.tag_filter.optional(),
  limit: fields.limit.default(20),
});

export const scheduleReminderInput = z.object({ task_id: fields.task_id, reminder_time: fields.reminder_time });

export const recurringTasksInput = z.object({ pattern: fields.recurrence_pattern.optional() });

export const analyticsInput = z.object({});

export type AddTaskInput = z.output<typeof addTaskInput>;
export type ListTasksInput = z.output<typeof listTasksInput>;
export type UpdateFields = z.output<typeof updateFields>;
export type SearchTasksInput = z.output<typeof searchTasksInput>;

// ---- outputs ------------------------------------------------------------------------------

export const taskSchema = z.object({
  id: z.int(),
  title: z.string(),
  description: z.string(),
  status: z.enum(["pending", "completed"]),
  priority: z.enum(PRIORITIES),
  due_date: z.string().nullable(),
  tags: z.array(z.string()),
  recurrence_pattern: z.enum(RECURRENCE_PATTERNS).nullable(),
  completed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  overdue: z.boolean().describe("Pending and past its due date"),
});
export type Task = z.output<typeof taskSchema>;

export const reminderSchema = z.object({
  id: z.int(),
  task_id: z.int(),
  reminder_time: z.string(),
  sent_at: z.string().nullable(),
  created_at: z.string(),
});
export type Reminder = z.output<typeof reminderSchema>;

export const taskResult = z.object({ task: taskSchema });
export const completeResult = z.object({ task: taskSchema, next_occurrence: taskSchema.nullable() });
export const deleteResult = z.object({ deleted: z.literal(true), task: taskSchema });
export const taskPage = z.object({
  tasks: z.array(taskSchema),
  count: z.int(),
  next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last page"),
});
export const searchResult = z.object({
  tasks: z.array(taskSchema.extend({ rank: z.number().describe("bm25 relevance; lower is better") })),
  count: z.int(),
});
export const reminderResult = z.object({ reminder: reminderSchema, task: taskSchema });
export const recurringResult = z.object({ tasks: z.array(taskSchema), count: z.int() });
export const analyticsResult = z.object({
  total: z.int(),
  completed: z.int(),
  pending: z.int(),
  completion_rate: z.number().describe("completed / total, 0–1; 0 when there are no tasks"),
  overdue: z.int(),
  by_priority: z.object({ high: z.int(), medium: z.int(), low: z.int(), none: z.int() }),
});
export type Analytics = z.output<typeof analyticsResult>;

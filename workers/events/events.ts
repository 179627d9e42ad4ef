/**
 * Domain events: what happened to a task, as written to the outbox and sent on the EVENTS queue.
 * The message shape is documented in docs/storage.md; bump `version` on any breaking change.
 */
import { z } from "zod";
import { taskSchema } from "../tasks/tasks.schema";

export const EVENT_TYPES = ["CREATED", "UPDATED", "COMPLETED", "DELETED", "REMINDER_DUE"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const domainEventSchema = z.object({
  event_id: z.string().min(1),
  type: z.enum(EVENT_TYPES),
  version: z.literal(1),
  occurred_at: z.string(),
  user_id: z.int(),
  task_id: z.int().nullable(),
  /** The task as it was right after the change (right before it, for DELETED). */
  task: taskSchema.omit({ overdue: true }),
  /** REMINDER_DUE only: the reminder that fell due. */
  reminder: z.object({ id: z.int(), reminder_time: z.string() }).optional(),
});
export type DomainEvent = z.output<typeof domainEventSchema>;

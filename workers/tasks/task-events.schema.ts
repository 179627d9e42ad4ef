/**
 * Task events: what happened to a task, as written to the outbox (task-outbox.statements.ts) and
 * sent on the EVENTS queue. The message shape is documented in docs/storage.md.
 */
import * as z from "zod";
import { eventEnvelopeSchema } from "../events/envelope.schema";
import { taskSchema } from "./tasks.schema";

export const TASK_EVENT_TYPES = ["CREATED", "UPDATED", "COMPLETED", "DELETED", "REMINDER_DUE"] as const;
export type TaskEventType = (typeof TASK_EVENT_TYPES)[number];

export const taskEventSchema = eventEnvelopeSchema.extend({
  type: z.enum(TASK_EVENT_TYPES),
  /** The task as it was right after the change (right before it, for DELETED). */
  task: taskSchema.omit({ overdue: true }),
  /** REMINDER_DUE only: the reminder that fell due. */
  reminder: z.object({ id: z.int(), reminder_time: z.string() }).optional(),
});
export type TaskEvent = z.output<typeof taskEventSchema>;

/**
 * The envelope every message on the EVENTS queue shares, whatever its domain: what the consumer
 * records in audit_log and the outbox relay re-sends. Each domain owns the schema of its own
 * events, built by extending this one (tasks/task-events.schema.ts,
 * gateway/calls/gateway-call-event.schema.ts), so this folder depends on no domain; workers/queue-events.ts
 * lists them all. The message shapes are documented in docs/storage.md; bump `version` on any
 * breaking change.
 */
import * as z from "zod";

export const eventEnvelopeSchema = z.object({
  event_id: z.string().min(1),
  type: z.string().min(1),
  version: z.literal(1),
  occurred_at: z.string(),
  user_id: z.int(),
  task_id: z.int().nullable(),
});
export type QueueEvent = z.output<typeof eventEnvelopeSchema>;

/** Validates a message body as one of the events the queue carries (workers/queue-events.ts). */
export type QueueEventParser = (body: unknown) => z.ZodSafeParseResult<QueueEvent>;

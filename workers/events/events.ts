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

/** Outcomes of a gateway tool call (workers/gateway): `ok` or the typed error that ended it. */
export const GATEWAY_OUTCOMES = ["ok", "tool_error", "connection", "protocol", "timeout", "circuit_open", "url_refused"] as const;

/**
 * The audit record of one tool call through the gateway (/mcp), to a source or a built-in tool. Never carries
 * argument or result values: only who called what, how long it took and how it ended.
 */
export const gatewayCallEventSchema = z.object({
  event_id: z.string().min(1),
  type: z.literal("GATEWAY_CALL"),
  version: z.literal(1),
  occurred_at: z.string(),
  user_id: z.int(),
  task_id: z.null(),
  gateway_call: z.object({
    source_id: z.int().nullable().describe("null for a built-in tool"),
    source_slug: z.string().describe("The source's slug, or builtin:<server> for a built-in tool"),
    tool: z.string().describe("The upstream's tool name (the built-in tool's name)"),
    duration_ms: z.int().nonnegative(),
    outcome: z.enum(GATEWAY_OUTCOMES),
  }),
});
export type GatewayCallEvent = z.output<typeof gatewayCallEventSchema>;

/** Everything the EVENTS queue carries: what its consumer accepts. */
export type QueueEvent = DomainEvent | GatewayCallEvent;

/** Picks the schema by `type`, so a bad task event is still reported field by field. */
export function parseQueueEvent(body: unknown) {
  const gateway = typeof body === "object" && body !== null && "type" in body && body.type === "GATEWAY_CALL";
  return gateway ? gatewayCallEventSchema.safeParse(body) : domainEventSchema.safeParse(body);
}

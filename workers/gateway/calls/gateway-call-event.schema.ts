/**
 * The audit record of one tool call through the gateway (/mcp), to a source or a built-in tool, as
 * sent on the EVENTS queue (gateway-audit.ts). Never carries argument or result values: only who
 * called what, how long it took and how it ended. The message shape is documented in docs/storage.md.
 */
import * as z from "zod";
import { eventEnvelopeSchema } from "../../events/envelope.schema";

/** Outcomes of a gateway tool call: `ok` or the typed error that ended it. */
export const GATEWAY_OUTCOMES = [
  "ok",
  "tool_error",
  "connection",
  "protocol",
  "timeout",
  "circuit_open",
  "busy",
  "url_refused",
  "unauthorized",
  "insufficient_scope",
  "authorization_required",
  "result_too_large",
] as const;

export const gatewayCallEventSchema = eventEnvelopeSchema.extend({
  type: z.literal("GATEWAY_CALL"),
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

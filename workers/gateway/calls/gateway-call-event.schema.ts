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

/**
 * The MCP client that made the call, as far as the request told (decision 0060): the name and
 * version a 2026-07-28 request carries in its `_meta` client info (a 2025 client sends them only in
 * `initialize`, another request: null), the protocol revision, and the OAuth client its token was
 * issued to (null for an API token). Absent on events recorded before it was added.
 */
export const gatewayCallClientSchema = z.object({
  name: z.string().nullable(),
  version: z.string().nullable(),
  protocol_version: z.string().nullable(),
  oauth_client_id: z.string().nullable(),
});
export type GatewayCallClient = z.output<typeof gatewayCallClientSchema>;

export const gatewayCallEventSchema = eventEnvelopeSchema.extend({
  type: z.literal("GATEWAY_CALL"),
  task_id: z.null(),
  gateway_call: z.object({
    source_id: z.int().nullable().describe("null for a built-in tool"),
    source_slug: z.string().describe("The source's slug, or builtin:<server> for a built-in tool"),
    tool: z.string().describe("The upstream's tool name (the built-in tool's name)"),
    method: z
      .string()
      .optional()
      .describe("The MCP method when not tools/call (resources/read, prompts/get …; decision 0068); absent for a tool call"),
    duration_ms: z.int().nonnegative(),
    outcome: z.enum(GATEWAY_OUTCOMES),
    client: gatewayCallClientSchema.optional(),
  }),
});
export type GatewayCallEvent = z.output<typeof gatewayCallEventSchema>;

/**
 * The audit record of a change to a user's connection to an OAuth-protected source, as sent on the
 * EVENTS queue (connection-audit.ts): connected, refreshed, disconnected, or a failed connect
 * or refresh. Never a token, code, verifier or secret: only who, which source, what happened, the
 * scopes granted and how mcp-edge identified itself. The shape is documented in docs/storage.md.
 */
import * as z from "zod";
import { eventEnvelopeSchema } from "../events/envelope.schema";

export const CONNECTION_ACTIONS = ["connected", "refreshed", "disconnected", "connect_failed", "refresh_failed"] as const;

export const connectionEventSchema = eventEnvelopeSchema.extend({
  type: z.literal("UPSTREAM_OAUTH"),
  task_id: z.null(),
  upstream_oauth: z.object({
    source_id: z.int(),
    action: z.enum(CONNECTION_ACTIONS),
    scope: z.string().nullable().describe("The scopes granted (connected, refreshed); null otherwise"),
    client_identification: z.enum(["metadata_document", "dynamic_registration", "manual"]).nullable(),
  }),
});
export type ConnectionEvent = z.output<typeof connectionEventSchema>;

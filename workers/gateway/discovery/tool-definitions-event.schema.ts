/**
 * The record of a change to a source's pinned tool definitions (decision 0049), written to the
 * outbox in the same D1 batch as the change and recorded in audit_log: `held` when a discovery
 * finds definitions that differ from the approved ones (or tools new since), `approved` when the
 * owner approves them — or the first discovery after registering approves what it lists. Carries
 * names and hashes, never the definitions themselves. An act touching more tools than fit one
 * message is recorded as several, `part` of `parts`. Documented in docs/storage.md.
 */
import * as z from "zod";
import { eventEnvelopeSchema } from "../../events/envelope.schema";

/**
 * Tools per message. An entry takes at most ~390 bytes (a name of 64 characters without controls is
 * at most 192 bytes of UTF-8, two hashes 128) and the rest of a message ~330, so a message stays
 * under 2.3 KB and the outbox relay's batch of 100 under the 256 KB a queue batch may carry.
 */
export const TOOLS_PER_EVENT = 5;
/** Characters of a tool's name an event keeps (cleaned as a title: no control characters to escape). */
export const EVENT_NAME_CHARS = 64;

export const toolDefinitionsEventSchema = eventEnvelopeSchema.extend({
  type: z.literal("TOOL_DEFINITIONS"),
  task_id: z.null(),
  tool_definitions: z.object({
    source_id: z.int(),
    source_slug: z.string(),
    action: z.enum(["held", "approved"]),
    /**
     * `discovery`: registration, refresh, the cron or a list_changed; `registration`: the first
     * successful discovery's approval; `owner`: REST or the console.
     */
    via: z.enum(["discovery", "registration", "owner"]),
    tools: z
      .array(
        z.object({
          name: z.string().max(EVENT_NAME_CHARS).describe("The upstream's tool name (its first 64 characters)"),
          change: z
            .enum(["new", "changed"])
            .nullable()
            .describe("held: no approved definition of this name, or another one; null for approvals"),
          definition_hash: z.string(),
          approved_hash: z.string().nullable().describe("held: the hash approved before; null when none"),
        }),
      )
      .max(TOOLS_PER_EVENT),
    part: z.int().positive(),
    parts: z.int().positive(),
  }),
});
export type ToolDefinitionsEvent = z.output<typeof toolDefinitionsEventSchema>;

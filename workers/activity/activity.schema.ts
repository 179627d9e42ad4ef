/**
 * A person's activity (GET /api/activity): their own tool calls through the gateway (/mcp), newest
 * first, as the GATEWAY_CALL audit recorded them — never argument or result values, only who called
 * what, from which client, how it ended and how long it took. The same shapes validate the route
 * and describe it in /openapi.json.
 */
import * as z from "zod";
import { GATEWAY_OUTCOMES } from "../gateway/calls/gateway-call-event.schema";

export const activityFields = {
  limit: z.int().min(1).max(100).describe("How many calls to return, 1–100"),
  cursor: z.string().max(200).describe("Opaque cursor from a previous page's next_cursor"),
};

export const activityClient = z
  .object({
    name: z.string().nullable().describe("The MCP client's own name (2026-07-28 requests carry it); null when the request did not say"),
    version: z.string().nullable().describe("The MCP client's own version; null when the request did not say"),
    protocol_version: z.string().nullable().describe("The MCP protocol revision the request spoke"),
    oauth_client_id: z.string().nullable().describe("The OAuth client the token was issued to; null for an API token"),
  })
  .describe("Who called, as far as the request told; every field null for calls recorded before clients were recorded");

export const activityCall = z.object({
  event_id: z.string(),
  at: z.string().describe("When the call was made (ISO 8601 UTC)"),
  server: z.string().describe("The server whose tool ran: a built-in server (tasks, rag, thinking, gateway) or the source's slug"),
  tool: z.string().describe("The tool's own name on that server"),
  source: z.object({ id: z.int(), slug: z.string() }).nullable().describe("The gateway source called; null for a built-in tool"),
  outcome: z.enum(GATEWAY_OUTCOMES).describe("ok, tool_error (the tool answered isError), or the typed failure that ended the call"),
  duration_ms: z.int(),
  client: activityClient,
});
export type ActivityCall = z.output<typeof activityCall>;

export const activityPage = z.object({
  calls: z.array(activityCall),
  next_cursor: z.string().nullable().describe("Pass as cursor for the next (older) page; null on the last page"),
  retention_days: z.int().describe("Calls are kept this many days (AUDIT_RETENTION_DAYS); nothing older is listed"),
});
export type ActivityPage = z.output<typeof activityPage>;

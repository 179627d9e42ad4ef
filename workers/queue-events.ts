/**
 * Every kind of message the EVENTS queue carries, for its consumer and the outbox relay: each
 * domain owns its event schema, and this registry (wiring, like mcp-servers.ts) is the one place
 * that knows them all, so events/ depends on no domain.
 */
import type { z } from "zod";
import { gatewayCallEventSchema, type GatewayCallEvent } from "./gateway/calls/gateway-call-event.schema";
import { toolDefinitionsEventSchema, type ToolDefinitionsEvent } from "./gateway/discovery/tool-definitions-event.schema";
import { isJsonObject } from "./lib/json";
import { taskEventSchema, type TaskEvent } from "./tasks/task-events.schema";
import { connectionEventSchema, type ConnectionEvent } from "./upstream-connections/connection-event.schema";

export type KnownQueueEvent = TaskEvent | GatewayCallEvent | ConnectionEvent | ToolDefinitionsEvent;

/** Picks the schema by `type`, so a bad task event is still reported field by field. */
export function parseQueueEvent(body: unknown): z.ZodSafeParseResult<KnownQueueEvent> {
  const type = isJsonObject(body) ? body["type"] : undefined;
  if (type === "GATEWAY_CALL") return gatewayCallEventSchema.safeParse(body);
  if (type === "UPSTREAM_OAUTH") return connectionEventSchema.safeParse(body);
  if (type === "TOOL_DEFINITIONS") return toolDefinitionsEventSchema.safeParse(body);
  return taskEventSchema.safeParse(body);
}

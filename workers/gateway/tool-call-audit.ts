/**
 * The audit of every tool call on /mcp, one GATEWAY_CALL message per call on the EVENTS queue,
 * sent in the background: a source's tool (source id and slug, the upstream's tool name) or a
 * built-in one (source `builtin:<server>`, no source id). Never argument or result values. Unlike
 * task events these have no outbox row (there is no D1 change to commit them with), so a failed
 * send is logged and the event is lost; see decision 0008.
 */
import type { GatewayCallEvent } from "./gateway-call-event.schema";
import { nowIso } from "../lib/clock";
import { log } from "../lib/log";
import type { CallOutcome } from "./upstream.types";

export interface ToolCallRecord {
  userId: number;
  /** null for a built-in tool. */
  sourceId: number | null;
  /** The source's slug, or `builtin:<server>` (tasks, rag, thinking, or gateway for the admin tools). */
  source: string;
  /** The upstream's tool name (the built-in tool's name). */
  tool: string;
  durationMs: number;
  /** A built-in tool ends `ok` or `tool_error` (it answered isError). */
  outcome: CallOutcome;
}

export interface ToolCallAudit {
  record(call: ToolCallRecord): void;
}

export function toolCallEvent(call: ToolCallRecord): GatewayCallEvent {
  return {
    event_id: crypto.randomUUID(),
    type: "GATEWAY_CALL",
    version: 1,
    occurred_at: nowIso(),
    user_id: call.userId,
    task_id: null,
    gateway_call: {
      source_id: call.sourceId,
      source_slug: call.source,
      tool: call.tool,
      duration_ms: Math.max(0, Math.round(call.durationMs)),
      outcome: call.outcome,
    },
  };
}

export function queueToolCallAudit(queue: Queue, waitUntil: (promise: Promise<unknown>) => void): ToolCallAudit {
  return {
    record(call) {
      const event = toolCallEvent(call);
      waitUntil(
        queue.send(event, { contentType: "json" }).catch((error: unknown) => {
          log.warn("gateway audit event send failed", { event_id: event.event_id, error: String(error) });
        }),
      );
    },
  };
}

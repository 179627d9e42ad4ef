/**
 * Audit events of gateway tool calls: one GATEWAY_CALL message per call through /mcp on the EVENTS
 * queue — to a source, or to a built-in tool (source `builtin:<server>`, no source id) — sent in
 * the background. Never argument or result values. Unlike task events these have no outbox row (there is no D1 change to
 * commit them with), so a failed send is logged and the event is lost; see decision 0008.
 */
import type { GatewayCallEvent } from "./gateway-call-event.schema";
import { nowIso } from "../lib/clock";
import { log } from "../lib/log";
import type { CallOutcome } from "./upstream.types";

export interface GatewayCall {
  userId: number;
  sourceId: number;
  sourceSlug: string;
  tool: string;
  durationMs: number;
  outcome: CallOutcome;
}

/** A built-in tool's call on /mcp: `ok`, or `tool_error` when it answered isError. */
export interface BuiltinCall {
  userId: number;
  /** The built-in server (tasks, rag, thinking) or `gateway` for the admin tools. */
  server: string;
  tool: string;
  durationMs: number;
  outcome: "ok" | "tool_error";
}

export interface GatewayAuditSink {
  record(call: GatewayCall): void;
  recordBuiltin(call: BuiltinCall): void;
}

export function builtinCallEvent(call: BuiltinCall): GatewayCallEvent {
  return callEvent(call.userId, null, `builtin:${call.server}`, call.tool, call.durationMs, call.outcome);
}

export function gatewayCallEvent(call: GatewayCall): GatewayCallEvent {
  return callEvent(call.userId, call.sourceId, call.sourceSlug, call.tool, call.durationMs, call.outcome);
}

function callEvent(
  userId: number,
  sourceId: number | null,
  sourceSlug: string,
  tool: string,
  durationMs: number,
  outcome: CallOutcome,
): GatewayCallEvent {
  return {
    event_id: crypto.randomUUID(),
    type: "GATEWAY_CALL",
    version: 1,
    occurred_at: nowIso(),
    user_id: userId,
    task_id: null,
    gateway_call: { source_id: sourceId, source_slug: sourceSlug, tool, duration_ms: Math.max(0, Math.round(durationMs)), outcome },
  };
}

export function queueAuditSink(queue: Queue, waitUntil: (promise: Promise<unknown>) => void): GatewayAuditSink {
  const send = (event: GatewayCallEvent) =>
    waitUntil(
      queue.send(event, { contentType: "json" }).catch((error: unknown) => {
        log.warn("gateway audit event send failed", { event_id: event.event_id, error: String(error) });
      }),
    );
  return {
    record: (call) => send(gatewayCallEvent(call)),
    recordBuiltin: (call) => send(builtinCallEvent(call)),
  };
}

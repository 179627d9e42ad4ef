/**
 * Audit events of gateway tool calls: one GATEWAY_CALL message per call on the EVENTS queue,
 * sent in the background. Unlike task events these have no outbox row (there is no D1 change to
 * commit them with), so a failed send is logged and the event is lost; see decision 0008.
 */
import type { GatewayCallEvent } from "../events/events";
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

export interface GatewayAuditSink {
  record(call: GatewayCall): void;
}

export function gatewayCallEvent(call: GatewayCall): GatewayCallEvent {
  return {
    event_id: crypto.randomUUID(),
    type: "GATEWAY_CALL",
    version: 1,
    occurred_at: nowIso(),
    user_id: call.userId,
    task_id: null,
    gateway_call: {
      source_id: call.sourceId,
      source_slug: call.sourceSlug,
      tool: call.tool,
      duration_ms: Math.max(0, Math.round(call.durationMs)),
      outcome: call.outcome,
    },
  };
}

export function queueAuditSink(queue: Queue, waitUntil: (promise: Promise<unknown>) => void): GatewayAuditSink {
  return {
    record(call) {
      const event = gatewayCallEvent(call);
      waitUntil(
        queue.send(event, { contentType: "json" }).catch((error: unknown) => {
          log.warn("gateway audit event send failed", { event_id: event.event_id, error: String(error) });
        }),
      );
    },
  };
}

/**
 * The audit of every tool call on /mcp, one GATEWAY_CALL message per call on the EVENTS queue,
 * sent in the background: a source's tool (source id and slug, the upstream's tool name) or a
 * built-in one (source `builtin:<server>`, no source id). Never argument or result values. Unlike
 * task events these have no outbox row (there is no D1 change to commit them with), so a failed
 * send is logged and the event is lost; see decision 0008.
 *
 * The messages of calls ending within DEFERRED_RUN_DELAY_MS of each other in one isolate go in one
 * `sendBatch`, sent in the isolate's next run of deferred work (deferred-batch.ts, shared with the
 * breaker reports): every request whose event a run carries keeps that run alive (waitUntil), so an
 * event is sent as surely as with a send of its own. What is gathered lives in CallEventBuffers
 * (the isolate's: workers/isolate-state.ts).
 */
import type { GatewayCallClient, GatewayCallEvent } from "./gateway-call-event.schema";
import { nowIso } from "../../lib/clock";
import { log } from "../../lib/log";
import type { DeferredBatch } from "./deferred-batch";
import type { CallOutcome } from "../sources/upstream.types";

export interface ToolCallRecord {
  userId: number;
  /** null for a built-in tool. */
  sourceId: number | null;
  /** The source's slug, or `builtin:<server>` (tasks, rag, thinking, or gateway for the admin tools). */
  source: string;
  /** The upstream's tool name (the built-in tool's name); for another method, its prompt's name or the method. */
  tool: string;
  /** The MCP method when it is not tools/call (decision 0068): a resource, prompt or completion request. */
  method?: string | undefined;
  durationMs: number;
  /** A built-in tool ends `ok` or `tool_error` (it answered isError). */
  outcome: CallOutcome;
}

export interface ToolCallAudit {
  record(call: ToolCallRecord): void;
}

/** A request's audit: told the request's MCP client once its body is read (mcp/hosting.ts), it stamps every call recorded after. */
export interface RequestToolCallAudit extends ToolCallAudit {
  identify(client: GatewayCallClient): void;
}

export function toolCallEvent(call: ToolCallRecord, client?: GatewayCallClient): GatewayCallEvent {
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
      ...(call.method ? { method: call.method } : {}),
      duration_ms: Math.max(0, Math.round(call.durationMs)),
      outcome: call.outcome,
      ...(client ? { client } : {}),
    },
  };
}

/** The queue's limit of messages per sendBatch. */
const MAX_BATCH = 100;

interface Pending {
  events: GatewayCallEvent[];
  /** The deferred run that will send `events`, once one is joined. */
  send: Promise<void> | undefined;
}

async function sendGathered(queue: Queue, buffer: Pending): Promise<void> {
  const events = buffer.events;
  buffer.events = [];
  buffer.send = undefined;
  for (let start = 0; start < events.length; start += MAX_BATCH) {
    const batch = events.slice(start, start + MAX_BATCH);
    await queue.sendBatch(batch.map((event) => ({ body: event, contentType: "json" as const }))).catch((error: unknown) => {
      log.warn("gateway audit events send failed", { events: batch.length, first_event_id: batch[0]!.event_id, error: String(error) });
    });
  }
}

/** Per queue binding, the messages gathered in this isolate and the deferred run that will carry them. */
export class CallEventBuffers {
  private readonly pending = new WeakMap<Queue, Pending>();

  constructor(private readonly deferred: DeferredBatch) {}

  /** Adds `event` to what the queue's next run sends; that run's promise, the one to keep the request alive for. */
  add(queue: Queue, event: GatewayCallEvent): Promise<void> {
    let buffer = this.pending.get(queue);
    if (!buffer) this.pending.set(queue, (buffer = { events: [], send: undefined }));
    buffer.events.push(event);
    const gathered = buffer;
    buffer.send ??= this.deferred.join(() => sendGathered(queue, gathered));
    return buffer.send;
  }
}

export function queueToolCallAudit(
  queue: Queue,
  waitUntil: (promise: Promise<unknown>) => void,
  buffers: CallEventBuffers,
): RequestToolCallAudit {
  let client: GatewayCallClient | undefined;
  return {
    identify(caller) {
      client = caller;
    },
    record(call) {
      waitUntil(buffers.add(queue, toolCallEvent(call, client)));
    },
  };
}

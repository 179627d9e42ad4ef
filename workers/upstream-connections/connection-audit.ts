/**
 * Audit events of upstream connections (UPSTREAM_OAUTH on the EVENTS queue), sent in the
 * background like the gateway's call audit: a failed send is logged and the event lost (no D1
 * change to commit it with; see decision 0008).
 */
import { nowIso } from "../lib/clock";
import { log } from "../lib/log";
import type { ClientIdentification } from "./gateway-oauth-client";
import type { CONNECTION_ACTIONS, ConnectionEvent } from "./connection-event.schema";

export interface ConnectionRecord {
  userId: number;
  sourceId: number;
  action: (typeof CONNECTION_ACTIONS)[number];
  scope: string | null;
  identification: ClientIdentification | null;
}

export interface ConnectionAudit {
  record(entry: ConnectionRecord): void;
}

export function connectionEvent(entry: ConnectionRecord): ConnectionEvent {
  return {
    event_id: crypto.randomUUID(),
    type: "UPSTREAM_OAUTH",
    version: 1,
    occurred_at: nowIso(),
    user_id: entry.userId,
    task_id: null,
    upstream_oauth: { source_id: entry.sourceId, action: entry.action, scope: entry.scope, client_identification: entry.identification },
  };
}

export function queueConnectionAudit(queue: Queue, waitUntil: (promise: Promise<unknown>) => void): ConnectionAudit {
  return {
    record(entry) {
      const event = connectionEvent(entry);
      waitUntil(
        queue.send(event, { contentType: "json" }).catch((error: unknown) => {
          log.warn("upstream connection audit event send failed", { event_id: event.event_id, error: String(error) });
        }),
      );
    },
  };
}

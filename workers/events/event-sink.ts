/**
 * Where committed events go after their D1 batch: onto the EVENTS queue, in the background.
 * A failed send is logged and left to the outbox relay (cron); it never fails the caller,
 * because the event is already safe in the outbox.
 */
import type { QueueEvent } from "./envelope.schema";
import { log } from "../lib/log";

export interface EventSink {
  publish(events: readonly QueueEvent[]): void;
}

export function queueEventSink(queue: Queue, waitUntil: (promise: Promise<unknown>) => void): EventSink {
  return {
    publish(events) {
      if (events.length === 0) return;
      waitUntil(
        sendEvents(queue, events).catch((error: unknown) => {
          log.warn("event send failed; the outbox relay will retry", { count: events.length, error: String(error) });
        }),
      );
    },
  };
}

export async function sendEvents(queue: Queue, events: readonly QueueEvent[]): Promise<void> {
  await queue.sendBatch(events.map((event) => ({ body: event, contentType: "json" as const })));
}

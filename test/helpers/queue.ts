/**
 * The Worker's queue handler driven directly (createMessageBatch / getQueueResult), and stand-ins
 * for Cloudflare's queue binding: one that is down, one that records what it forwards.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, type QueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../workers/index";

export const EVENTS_QUEUE = "mcp-edge-events";
export const DEAD_LETTER_QUEUE = "mcp-edge-events-dlq";

export async function deliver(queue: string, messages: readonly { id: string; body: unknown }[]): Promise<QueueResult> {
  const batch = createMessageBatch(
    queue,
    messages.map((message) => ({ ...message, timestamp: Date.now(), attempts: 1 })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

/** A queue whose every send is rejected, as when Cloudflare Queues is unavailable. */
export function unavailableQueue(): Queue {
  const down = () => Promise.reject(new Error("queue unavailable"));
  return { metrics: down, send: down, sendBatch: down };
}

/** Forwards to `inner` and keeps every message body it was asked to send. */
export function recordingQueue(inner: Queue): { queue: Queue; sent: unknown[] } {
  const sent: unknown[] = [];
  const queue: Queue = {
    metrics: () => inner.metrics(),
    send: (body, options) => {
      sent.push(body);
      return inner.send(body, options);
    },
    sendBatch: (messages, options) => {
      const list = [...messages];
      sent.push(...list.map((message) => message.body));
      return inner.sendBatch(list, options);
    },
  };
  return { queue, sent };
}

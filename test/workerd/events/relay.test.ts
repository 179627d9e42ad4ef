/**
 * A queue send that fails never fails the tool call: the event waits in the outbox, and the relay
 * re-sends it after the grace period. Cloudflare's queue is replaced by a stand-in that is down;
 * D1 and the consumer are real.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { queueEventSink } from "../../../workers/events/event-sink";
import { outboxStatus } from "../../../workers/events/outbox.repo";
import { RELAY_GRACE_MS, relayPendingEvents } from "../../../workers/events/outbox.relay";
import { parseQueueEvent } from "../../../workers/queue-events";
import { openDb } from "../../../workers/lib/db";
import { connectWithBindings } from "../../helpers/app";
import { workerFetch } from "../../helpers/mcp";
import { addTask } from "../../helpers/tasks";
import { auditCount, outboxForUser, outboxRow } from "../../helpers/db";
import { syntheticEvent } from "../../helpers/events";
import { deliver, EVENTS_QUEUE, recordingQueue, unavailableQueue } from "../../helpers/queue";
import { createUser, type TestUser } from "../../helpers/users";

/** The user's own undelivered events, as /health shows them with their token. */
async function healthBacklog(user: TestUser): Promise<number> {
  const res = await workerFetch("http://localhost/health", { headers: user.headers });
  return (await res.json<{ outbox: { backlog: number } }>()).outbox.backlog;
}

describe("event sink", () => {
  it("swallows a failed send (it is logged) instead of failing the caller", async () => {
    const pending: Promise<unknown>[] = [];
    const sink = queueEventSink(unavailableQueue(), (promise) => pending.push(promise));
    expect(() => sink.publish([syntheticEvent()])).not.toThrow();
    expect(pending).toHaveLength(1);
    await expect(pending[0]).resolves.toBeUndefined();
  });
});

describe("outbox relay", () => {
  it("re-sends an event whose first send failed, once the grace period has passed, until the consumer confirms it", async () => {
    const db = openDb(env.DB);
    const user = await createUser();
    const { client, settle } = await connectWithBindings({ EVENTS: unavailableQueue() }, user.token);

    const task = await addTask(client, { title: "Queue is down" });
    await settle();

    const [row] = await outboxForUser(user.id);
    expect(row).toMatchObject({ type: "CREATED", task_id: task.id, delivered_at: null, attempts: 0 });
    expect(await healthBacklog(user)).toBe(1);
    const createdAt = Date.parse(row!.created_at);

    // Still within the grace period: the first send might yet arrive, so nothing is re-sent.
    const early = recordingQueue(env.EVENTS);
    await relayPendingEvents(db, early.queue, parseQueueEvent, createdAt + RELAY_GRACE_MS - 1);
    expect(early.sent).not.toContainEqual(expect.objectContaining({ event_id: row!.event_id }));

    // Past it, with the queue still down: the attempt is counted and the row stays pending.
    const stillDown = await relayPendingEvents(db, unavailableQueue(), parseQueueEvent, createdAt + RELAY_GRACE_MS + 1);
    expect(stillDown.sent).toBe(0);
    expect(stillDown.failed).toBeGreaterThanOrEqual(1);
    expect(await outboxRow(row!.event_id)).toMatchObject({ attempts: 1, delivered_at: null, last_error: "Error: queue unavailable" });

    // The queue is back: the relay sends it, and the consumer records it and confirms delivery.
    const recorder = recordingQueue(env.EVENTS);
    const relayed = await relayPendingEvents(db, recorder.queue, parseQueueEvent, createdAt + 2 * RELAY_GRACE_MS);
    expect(relayed.failed).toBe(0);
    expect(relayed.sent).toBe(recorder.sent.length);
    expect(recorder.sent).toContainEqual(JSON.parse(row!.payload));
    expect(await outboxRow(row!.event_id)).toMatchObject({ attempts: 2, last_error: null });

    const consumed = await deliver(
      EVENTS_QUEUE,
      recorder.sent.map((body, i) => ({ id: `relayed-${i}`, body })),
    );
    expect(consumed.retryMessages).toEqual([]);
    expect(await auditCount(row!.event_id)).toBe(1);
    expect((await outboxRow(row!.event_id))?.delivered_at).toEqual(expect.any(String));
    expect((await outboxStatus(db, user.id)).backlog).toBe(0);
    expect(await healthBacklog(user)).toBe(0);

    // Delivered events are never re-sent.
    expect(await relayPendingEvents(db, unavailableQueue(), parseQueueEvent, createdAt + 3 * RELAY_GRACE_MS)).toEqual({
      sent: 0,
      failed: 0,
    });
  });

  it("dead-letters an outbox row whose payload is not an event, and still relays the rest", async () => {
    const db = openDb(env.DB);
    const user = await createUser();
    const { client, settle } = await connectWithBindings({ EVENTS: unavailableQueue() }, user.token);
    await addTask(client, { title: "Good event" });
    await settle();
    const [good] = await outboxForUser(user.id);
    const badId = `corrupt-${crypto.randomUUID()}`;
    await env.DB.prepare(
      "INSERT INTO outbox (event_id, type, user_id, task_id, payload, created_at) VALUES (?, 'CREATED', ?, NULL, '{not json', ?)",
    )
      .bind(badId, user.id, good!.created_at)
      .run();

    const recorder = recordingQueue(env.EVENTS);
    const relayed = await relayPendingEvents(db, recorder.queue, parseQueueEvent, Date.parse(good!.created_at) + 2 * RELAY_GRACE_MS);
    expect(relayed.failed).toBe(0);
    expect(recorder.sent).toContainEqual(JSON.parse(good!.payload));
    expect(await outboxRow(badId)).toMatchObject({ last_error: "dead-lettered: invalid payload", delivered_at: expect.any(String) });
    const dead = await env.DB.prepare("SELECT queue, body FROM dead_letters WHERE message_id = ?").bind(badId).first();
    expect(dead).toEqual({ queue: "outbox", body: "{not json" });
  });
});

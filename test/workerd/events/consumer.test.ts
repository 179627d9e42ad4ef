/** The EVENTS queue consumer: records each event once in audit_log, marks the outbox delivered, keeps bad messages. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { TaskEvent } from "../../../workers/tasks/task-events.schema";
import { connect } from "../../helpers/mcp";
import { addTask } from "../../helpers/tasks";
import { auditCount, deadLettersFor, outboxForUser, outboxRow } from "../../helpers/db";
import { DEAD_LETTER_QUEUE, deliver, EVENTS_QUEUE } from "../../helpers/queue";
import { createUser } from "../../helpers/users";

/** A real event, as committed to the outbox by a tool call. */
async function committedEvent(): Promise<TaskEvent> {
  const user = await createUser();
  const client = await connect("tasks", user.token);
  await addTask(client, { title: "Audited", tags: ["x"] });
  const [row] = await outboxForUser(user.id);
  return JSON.parse(row!.payload) as TaskEvent;
}

function messageId(): string {
  return `msg-${crypto.randomUUID()}`;
}

describe("events consumer", () => {
  it("records the event in audit_log, marks its outbox row delivered and acks", async () => {
    const event = await committedEvent();
    const id = messageId();

    const result = await deliver(EVENTS_QUEUE, [{ id, body: event }]);

    expect(result.explicitAcks).toEqual([id]);
    expect(result.retryMessages).toEqual([]);
    const audit = await env.DB.prepare("SELECT * FROM audit_log WHERE event_id = ?").bind(event.event_id).first();
    expect(audit).toMatchObject({ type: "CREATED", user_id: event.user_id, task_id: event.task_id, occurred_at: event.occurred_at });
    expect(JSON.parse(String(audit!["payload"]))).toEqual(event);
    expect((await outboxRow(event.event_id))?.delivered_at).toEqual(expect.any(String));
  });

  it("keeps exactly one audit row when an event is delivered twice in one batch", async () => {
    const event = await committedEvent();
    const ids = [messageId(), messageId()];

    const result = await deliver(
      EVENTS_QUEUE,
      ids.map((id) => ({ id, body: event })),
    );

    expect(result.explicitAcks.sort()).toEqual([...ids].sort());
    expect(await auditCount(event.event_id)).toBe(1);
  });

  it("keeps exactly one audit row, and the first delivery time, when a batch is replayed", async () => {
    const event = await committedEvent();
    const messages = [{ id: messageId(), body: event }];

    await deliver(EVENTS_QUEUE, messages);
    const firstDelivery = (await outboxRow(event.event_id))?.delivered_at;
    const replay = await deliver(EVENTS_QUEUE, messages);

    expect(replay.explicitAcks).toEqual([messages[0]!.id]);
    expect(await auditCount(event.event_id)).toBe(1);
    expect((await outboxRow(event.event_id))?.delivered_at).toBe(firstDelivery);
  });

  it("moves a message that is not a domain event to dead_letters, acks it, and still records the valid ones", async () => {
    const event = await committedEvent();
    const [bad, alsoBad, good] = [messageId(), messageId(), messageId()];

    const result = await deliver(EVENTS_QUEUE, [
      { id: bad, body: { hello: "world" } },
      { id: alsoBad, body: { ...event, event_id: `${event.event_id}-v2`, version: 2 } },
      { id: good, body: event },
    ]);

    expect(result.explicitAcks.sort()).toEqual([bad, alsoBad, good].sort());
    expect(result.retryMessages).toEqual([]);
    const [letter] = await deadLettersFor(bad);
    expect(letter).toMatchObject({ queue: EVENTS_QUEUE, body: '{"hello":"world"}' });
    expect(letter!.reason).toMatch(/^not a domain event: event_id: /);
    expect((await deadLettersFor(alsoBad))[0]!.reason).toContain("version");
    expect(await auditCount(`${event.event_id}-v2`)).toBe(0);
    expect(await auditCount(event.event_id)).toBe(1);
  });

  it("stores whatever reaches the dead-letter queue in dead_letters and acks it", async () => {
    const event = await committedEvent();
    const [first, second] = [messageId(), messageId()];

    const result = await deliver(DEAD_LETTER_QUEUE, [
      { id: first, body: event },
      { id: second, body: "not even an object" },
    ]);

    expect(result.explicitAcks.sort()).toEqual([first, second].sort());
    expect(await deadLettersFor(first)).toEqual([
      { queue: DEAD_LETTER_QUEUE, body: JSON.stringify(event), reason: "exhausted retries on the events queue" },
    ]);
    expect((await deadLettersFor(second))[0]?.body).toBe('"not even an object"');
  });
});

/** A full queue batch crosses the consumer's statement chunking (14 audit rows, 99 ids per statement). */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { outboxForUser } from "../../helpers/db";
import { deliver, EVENTS_QUEUE } from "../../helpers/queue";
import { createUser } from "../../helpers/users";
import { connect } from "../../helpers/mcp";
import { addTask } from "../../helpers/tasks";
import { syntheticEvent } from "../../helpers/events";

describe("events consumer, large batches", () => {
  it("records 120 distinct events once each, replays included, and marks every outbox row delivered", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    for (let i = 0; i < 20; i++) await addTask(client, { title: `Batch task ${i}` });
    const committed = (await outboxForUser(user.id)).map((row) => JSON.parse(row.payload) as ReturnType<typeof syntheticEvent>);
    expect(committed).toHaveLength(20);
    const synthetic = Array.from({ length: 100 }, () => syntheticEvent({ user_id: user.id }));
    const events = [...committed, ...synthetic];
    const replays = events.slice(0, 15);

    const messages = [...events, ...replays].map((body, i) => ({ id: `large-${i}`, body }));
    const result = await deliver(EVENTS_QUEUE, messages);

    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(messages.length);
    const audit = await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE user_id = ?").bind(user.id).first<{ n: number }>();
    expect(audit?.n).toBe(events.length);
    const undelivered = (await outboxForUser(user.id)).filter((row) => row.delivered_at === null);
    expect(undelivered).toEqual([]);
  });
});

/**
 * Two complete_task calls racing on one task: one completes it, the other (after its
 * compare-and-set loses) reopens it, and the outbox holds exactly one event per change that
 * happened. The "same millisecond" case pins Date, as workerd's clock does between I/O, so both
 * requests compute the same updated_at and the loser's guard cannot tell the writes apart by time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect } from "../../helpers/mcp";
import { addTask, type Task } from "../../helpers/tasks";
import { countRows, outboxForUser } from "../../helpers/db";
import { createUser } from "../../helpers/users";

afterEach(() => {
  vi.useRealTimers();
});

function pinClock(): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-06-01T12:00:00.000Z"));
}

describe.each([
  ["the real clock", () => {}],
  ["the same millisecond", pinClock],
])("concurrent complete_task with %s", (_clock, setUp) => {
  it("on a recurring task: one completion, one next occurrence, one reopening — each evented once", async () => {
    setUp();
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const task = await addTask(client, { title: "Race", due_date: "2027-01-01", recurrence_pattern: "daily" });

    const results = await Promise.all([1, 2].map(() => client.callTool({ name: "complete_task", arguments: { task_id: task.id } })));

    expect(results.map((result) => result.isError ?? false)).toEqual([false, false]);
    const statuses = results.map((result) => (result.structuredContent as { task: Task }).task.status).sort();
    expect(statuses).toEqual(["completed", "pending"]);
    expect(await countRows("tasks", user.id)).toBe(2);
    const events = (await outboxForUser(user.id)).map((row) => row.type);
    expect(events).toEqual(["CREATED", "COMPLETED", "CREATED", "UPDATED"]);
  });

  it("on a one-time task: one completion and one reopening, each evented once", async () => {
    setUp();
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const task = await addTask(client, { title: "Race once" });

    await Promise.all([1, 2].map(() => client.callTool({ name: "complete_task", arguments: { task_id: task.id } })));

    const events = (await outboxForUser(user.id)).map((row) => row.type);
    expect(events).toEqual(["CREATED", "COMPLETED", "UPDATED"]);
  });
});

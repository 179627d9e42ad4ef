/**
 * An update writes its UPDATED event only if the update itself applied. The event's row is chosen
 * by (task id, updated_at = the event's time), which another write can share (workerd's clock only
 * moves on I/O), so the outbox insert is also guarded by changes() > 0, as every other write's is.
 * No outbox row — and so no audit row — for an update that changed nothing or hit a deleted task.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openDb } from "../../../workers/lib/db";
import * as repo from "../../../workers/tasks/tasks.repo";
import { auditCount, outboxForUser, outboxRow } from "../../helpers/db";
import { callOk, connect } from "../../helpers/mcp";
import { deliver, EVENTS_QUEUE } from "../../helpers/queue";
import { addTask, type Task } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

afterEach(() => {
  vi.useRealTimers();
});

describe("updateTask's outbox row", () => {
  it("is not written when the update's guard fails, even though a task row carries the event's updated_at", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const task = await addTask(client, { title: "Unchanged" });
    const eventId = crypto.randomUUID();

    // The compare-and-set expects another updated_at, so nothing is updated; the task's own
    // updated_at equals the event's time, as a concurrent write in the same millisecond leaves it.
    const result = await repo.updateTask(
      openDb(env.DB),
      user.id,
      task.id,
      { title: "Never written" },
      { type: "UPDATED", eventId, occurredAt: task.updated_at },
      "2000-01-01T00:00:00.000Z",
    );

    expect(result.task).toBeUndefined();
    expect(result.events).toEqual([]);
    expect(await outboxRow(eventId)).toBeNull();
    const [stored] = (await callOk<{ tasks: Task[] }>(client, "list_tasks")).tasks;
    expect(stored).toEqual(task);
    await client.close();
  });
});

describe("update_task racing delete_task in the same millisecond", () => {
  it("writes one UPDATED event per update that applied and none for one that found the task gone; audit matches outbox", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-06-01T12:00:00.000Z"));
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const tasks = await Promise.all(Array.from({ length: 6 }, (_, i) => addTask(client, { title: `race ${i}` })));

    const outcomes = await Promise.all(
      tasks.flatMap((task) => [
        client.callTool({ name: "update_task", arguments: { task_id: task.id, title: `${task.title} renamed` } }),
        client.callTool({ name: "delete_task", arguments: { task_id: task.id } }),
        client.callTool({ name: "update_task", arguments: { task_id: task.id, priority: "high" } }),
      ]),
    );
    const applied = new Map<number, number>();
    tasks.forEach((task, i) => {
      const updates = [outcomes[i * 3]!, outcomes[i * 3 + 2]!].filter((outcome) => !outcome.isError).length;
      applied.set(task.id, updates);
    });

    const rows = await outboxForUser(user.id);
    for (const task of tasks) {
      const mine = rows.filter((row) => row.task_id === task.id);
      expect(
        mine.filter((row) => row.type === "UPDATED"),
        `task ${task.id}`,
      ).toHaveLength(applied.get(task.id)!);
      expect(mine.filter((row) => row.type === "DELETED")).toHaveLength(1);
      // Nothing happens to a task after its deletion.
      expect(mine.at(-1)!.type).toBe("DELETED");
    }

    vi.useRealTimers();
    await deliver(
      EVENTS_QUEUE,
      rows.map((row) => ({ id: row.event_id, body: JSON.parse(row.payload) as unknown })),
    );
    for (const row of rows) expect(await auditCount(row.event_id)).toBe(1);
    const audit = await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE user_id = ?").bind(user.id).first<{ n: number }>();
    expect(audit!.n).toBe(rows.length);
    await client.close();
  });
});

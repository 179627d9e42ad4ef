/** Every task change writes its domain event to the outbox in the same D1 batch, and that event is what goes on the queue. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type TaskEvent, taskEventSchema } from "../../../workers/tasks/task-events.schema";
import { connectWithBindings } from "../../helpers/app";
import { callOk, connect } from "../../helpers/mcp";
import { addTask, type Task } from "../../helpers/tasks";
import { outboxForUser } from "../../helpers/db";
import { recordingQueue } from "../../helpers/queue";
import { createUser } from "../../helpers/users";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function snapshot(task: Task): Omit<Task, "overdue"> {
  const { overdue: _overdue, ...rest } = task;
  return rest;
}

async function events(userId: number): Promise<TaskEvent[]> {
  return (await outboxForUser(userId)).map((row) => {
    const event = taskEventSchema.parse(JSON.parse(row.payload));
    expect(row).toMatchObject({ event_id: event.event_id, type: event.type, user_id: event.user_id, task_id: event.task_id });
    return event;
  });
}

describe("outbox events", () => {
  it("CREATED, UPDATED (update, priority, tags) and DELETED carry version 1, the user and the task snapshot", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);

    const created = await addTask(client, { title: "Evented", tags: ["a"], due_date: "2027-01-01" });
    const updated = (await callOk<{ task: Task }>(client, "update_task", { task_id: created.id, title: "Renamed" })).task;
    const prioritised = (await callOk<{ task: Task }>(client, "set_priority", { task_id: created.id, priority: "high" })).task;
    const tagged = (await callOk<{ task: Task }>(client, "add_tags", { task_id: created.id, tags: ["b"] })).task;
    await callOk(client, "schedule_reminder", { task_id: created.id, reminder_time: "2099-01-01T00:00:00Z" });
    await callOk(client, "delete_task", { task_id: created.id });

    const all = await events(user.id);
    expect(all.map((event) => event.type)).toEqual(["CREATED", "UPDATED", "UPDATED", "UPDATED", "DELETED"]);
    for (const event of all) {
      expect(event).toMatchObject({ version: 1, user_id: user.id, task_id: created.id });
      expect(event.event_id).toMatch(UUID);
    }
    expect(new Set(all.map((event) => event.event_id)).size).toBe(5);
    expect(all[0]).toMatchObject({ occurred_at: created.created_at, task: snapshot(created) });
    expect(all[1]).toMatchObject({ occurred_at: updated.updated_at, task: snapshot(updated) });
    expect(all[2]!.task).toEqual(snapshot(prioritised));
    expect(all[3]!.task).toEqual(snapshot(tagged));
    // DELETED describes the task as it was just before it went.
    expect(all[4]!.task).toEqual(snapshot(tagged));
    expect(Date.parse(all[4]!.occurred_at)).not.toBeNaN();
  });

  it("COMPLETED on completion, UPDATED on reopening, and CREATED for a recurring task's next occurrence", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const task = await addTask(client, { title: "Daily", due_date: "2027-01-01", recurrence_pattern: "daily" });

    const done = await callOk<{ task: Task; next_occurrence: Task }>(client, "complete_task", { task_id: task.id });
    const reopened = await callOk<{ task: Task }>(client, "complete_task", { task_id: task.id });

    const [, completed, spawned, reopenedEvent, ...rest] = await events(user.id);
    expect(rest).toEqual([]);
    expect(completed).toMatchObject({ type: "COMPLETED", task_id: task.id, occurred_at: done.task.updated_at, task: snapshot(done.task) });
    expect(spawned).toMatchObject({ type: "CREATED", task_id: done.next_occurrence.id, task: snapshot(done.next_occurrence) });
    expect(reopenedEvent).toMatchObject({ type: "UPDATED", task_id: task.id, task: { status: "pending", completed_at: null } });
    expect(reopenedEvent!.task).toEqual(snapshot(reopened.task));
  });

  it("the events sent on the queue are exactly the committed outbox payloads", async () => {
    const user = await createUser();
    const recorder = recordingQueue(env.EVENTS);
    const { client, settle } = await connectWithBindings({ EVENTS: recorder.queue }, user.token);

    const task = await addTask(client, { title: "Sent", recurrence_pattern: "weekly" });
    await callOk(client, "complete_task", { task_id: task.id });
    await callOk(client, "delete_task", { task_id: task.id });
    await settle();

    const stored = (await outboxForUser(user.id)).map((row) => JSON.parse(row.payload) as unknown);
    expect(stored).toHaveLength(4);
    expect(recorder.sent).toEqual(stored);
  });
});

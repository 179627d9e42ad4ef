import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callOk, connect } from "../../helpers/mcp";
import { addTask, callError, callWithText, MISSING_ID, type Task } from "../../helpers/tasks";
import { countRows } from "../../helpers/db";
import { createUser } from "../../helpers/users";

async function session() {
  const user = await createUser();
  return { user, client: await connect("tasks", user.token) };
}

describe("add_task", () => {
  it("creates a task whose structured result carries its id and normalised fields", async () => {
    const { user, client } = await session();
    const { data, text } = await callWithText<{ task: Task }>(client, "add_task", {
      title: "  Write report  ",
      due_date: "2027-03-01T17:00:00+02:00",
      priority: "high",
      tags: [" work ", "work", "", "  ", "q1"],
      recurrence_pattern: "weekly",
    });
    const task = data.task;

    expect(Number.isInteger(task.id) && task.id > 0).toBe(true);
    expect(task).toMatchObject({
      title: "Write report",
      description: "Write report",
      status: "pending",
      priority: "high",
      due_date: "2027-03-01T15:00:00.000Z",
      tags: ["work", "q1"],
      recurrence_pattern: "weekly",
      completed_at: null,
      overdue: false,
    });
    expect(text).toContain(`#${task.id}`);
    const row = await env.DB.prepare("SELECT title, tags FROM tasks WHERE id = ? AND user_id = ?").bind(task.id, user.id).first();
    expect(row).toEqual({ title: "Write report", tags: '["work","q1"]' });
  });

  it("applies defaults and reads a bare date as midnight UTC", async () => {
    const { client } = await session();
    const task = await addTask(client, { title: "Dentist", description: "Bring the forms", due_date: "2027-12-01" });
    expect(task).toMatchObject({ description: "Bring the forms", priority: "none", tags: [], recurrence_pattern: null });
    expect(task.due_date).toBe("2027-12-01T00:00:00.000Z");
  });

  it("marks a pending task past its due date as overdue", async () => {
    const { client } = await session();
    const task = await addTask(client, { title: "Late", due_date: "2020-01-01" });
    expect(task.overdue).toBe(true);
  });
});

describe("update_task", () => {
  it("changes only the given fields, replaces tags, and null clears due date and recurrence", async () => {
    const { client } = await session();
    const task = await addTask(client, { title: "Old", due_date: "2027-05-05", tags: ["a"], recurrence_pattern: "daily", priority: "low" });

    const { task: updated } = await callOk<{ task: Task }>(client, "update_task", {
      task_id: task.id,
      title: "New",
      tags: ["b", " b ", "c"],
      due_date: null,
      recurrence_pattern: null,
    });

    expect(updated).toMatchObject({ id: task.id, title: "New", description: "Old", priority: "low", tags: ["b", "c"] });
    expect(updated.due_date).toBeNull();
    expect(updated.recurrence_pattern).toBeNull();
    expect(updated.updated_at >= task.updated_at).toBe(true);
  });

  it("refuses an update with nothing to change", async () => {
    const { client } = await session();
    const task = await addTask(client, { title: "Same" });
    const text = await callError(client, "update_task", { task_id: task.id });
    expect(text).toMatch(/^invalid_input: Nothing to update/);
  });
});

describe("set_priority", () => {
  it("sets the priority and keeps everything else", async () => {
    const { client } = await session();
    const task = await addTask(client, { title: "Prioritise me", tags: ["x"] });
    const { task: updated } = await callOk<{ task: Task }>(client, "set_priority", { task_id: task.id, priority: "medium" });
    expect(updated).toMatchObject({ id: task.id, priority: "medium", title: "Prioritise me", tags: ["x"] });
  });
});

describe("add_tags", () => {
  it("merges with existing tags in order, dropping duplicates and empties", async () => {
    const { client } = await session();
    const task = await addTask(client, { title: "Tagged", tags: ["a", "b"] });
    const { data, text } = await callWithText<{ task: Task }>(client, "add_tags", {
      task_id: task.id,
      tags: [" b", "c", "", "a", "d", "c"],
    });
    expect(data.task.tags).toEqual(["a", "b", "c", "d"]);
    expect(text).toContain("Tags now: a, b, c, d");
  });

  it("adding tags that are all present already changes nothing", async () => {
    const { client } = await session();
    const task = await addTask(client, { title: "Stable", tags: ["x", "y"] });
    const { task: updated } = await callOk<{ task: Task }>(client, "add_tags", { task_id: task.id, tags: ["y", "x"] });
    expect(updated.tags).toEqual(["x", "y"]);
  });
});

describe("add_tags cap", () => {
  const tags = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

  it("merges up to 20 tags, and refuses to go past 20 without changing anything", async () => {
    const { user, client } = await session();
    const task = await addTask(client, { title: "Many tags", tags: tags("a", 15) });
    const full = (await callOk<{ task: Task }>(client, "add_tags", { task_id: task.id, tags: [...tags("a", 3), ...tags("b", 5)] })).task;
    expect(full.tags).toEqual([...tags("a", 15), ...tags("b", 5)]);
    const eventsBefore = await countRows("outbox", user.id);

    const text = await callError(client, "add_tags", { task_id: task.id, tags: ["one-too-many"] });

    expect(text).toBe("invalid_input: tags: a task can carry at most 20 tags");
    const [still] = (await callOk<{ tasks: Task[] }>(client, "list_tasks")).tasks;
    expect(still).toEqual(full);
    expect(await countRows("outbox", user.id)).toBe(eventsBefore);
  });
});

describe("delete_task", () => {
  it("deletes the task and its reminders and returns the task as it was", async () => {
    const { user, client } = await session();
    const task = await addTask(client, { title: "Doomed", tags: ["t"] });
    await callOk(client, "schedule_reminder", { task_id: task.id, reminder_time: "2099-01-01T00:00:00Z" });

    const result = await callOk<{ deleted: boolean; task: Task }>(client, "delete_task", { task_id: task.id });

    expect(result).toMatchObject({ deleted: true, task: { id: task.id, title: "Doomed", tags: ["t"] } });
    expect(await countRows("tasks", user.id)).toBe(0);
    expect(await countRows("reminders", user.id)).toBe(0);
    expect(await callError(client, "delete_task", { task_id: task.id })).toBe(`not_found: Task ${task.id} not found`);
  });
});

describe("unknown task id", () => {
  it.each([
    ["complete_task", {}],
    ["delete_task", {}],
    ["update_task", { title: "x" }],
    ["set_priority", { priority: "high" }],
    ["add_tags", { tags: ["x"] }],
    ["schedule_reminder", { reminder_time: "2099-01-01T00:00:00Z" }],
  ])("%s answers not_found and writes nothing", async (tool, args) => {
    const { user, client } = await session();
    const text = await callError(client, tool, { task_id: MISSING_ID, ...args });
    expect(text).toBe(`not_found: Task ${MISSING_ID} not found`);
    expect(await countRows("tasks", user.id)).toBe(0);
    expect(await countRows("reminders", user.id)).toBe(0);
    expect(await countRows("outbox", user.id)).toBe(0);
  });
});

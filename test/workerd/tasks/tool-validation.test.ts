/**
 * Every way a tool call can be wrong: each answers an isError result that names the field,
 * never a stack trace, and leaves D1 as it was.
 */
import { describe, expect, it } from "vitest";
import { callOk, connect, ERAS } from "../../helpers/mcp";
import { addTask, callError } from "../../helpers/tasks";
import { countRows, outboxForUser } from "../../helpers/db";
import { createUser } from "../../helpers/users";

type Case = [tool: string, args: Record<string, unknown>, field: string, says: RegExp];

const CASES: Case[] = [
  // wrong types
  ["add_task", { title: 5 }, "title", /expected string/],
  ["add_task", { title: "t", tags: "a,b" }, "tags", /expected array/],
  ["add_task", { title: "t", priority: 1 }, "priority", /expected one of/],
  ["complete_task", { task_id: "1" }, "task_id", /expected number/],
  ["list_tasks", { limit: "10" }, "limit", /expected number/],
  ["add_tags", { task_id: 1, tags: [1, 2] }, "tags", /expected string/],
  // missing required fields
  ["add_task", {}, "title", /expected string/],
  ["complete_task", {}, "task_id", /expected number/],
  ["delete_task", {}, "task_id", /expected number/],
  ["update_task", { title: "x" }, "task_id", /expected number/],
  ["search_tasks", {}, "query", /expected string/],
  ["set_priority", { task_id: 1 }, "priority", /expected one of/],
  ["add_tags", { task_id: 1 }, "tags", /expected array/],
  ["schedule_reminder", { task_id: 1 }, "reminder_time", /ISO 8601/],
  // out of range
  ["add_task", { title: "x".repeat(201) }, "title", /at most 200 characters/],
  ["add_task", { title: "   " }, "title", /must not be empty/],
  ["add_task", { title: "t", tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "tags", /at most 20 tags/],
  ["add_task", { title: "t", tags: ["x".repeat(51)] }, "tags", /at most 50 characters/],
  ["update_task", { task_id: 1, title: "x".repeat(201) }, "title", /at most 200 characters/],
  ["list_tasks", { limit: 0 }, "limit", />=1/],
  ["list_tasks", { limit: 101 }, "limit", /<=100/],
  ["search_tasks", { query: "a", limit: 101 }, "limit", /<=100/],
  ["search_tasks", { query: "   " }, "query", /must not be empty/],
  ["complete_task", { task_id: 0 }, "task_id", />0/],
  ["complete_task", { task_id: 1.5 }, "task_id", /expected int/],
  ["add_tags", { task_id: 1, tags: ["", " "] }, "tags", /at least one non-empty tag/],
  // unknown enum values
  ["add_task", { title: "t", priority: "urgent" }, "priority", /expected one of "none"\|"low"\|"medium"\|"high"/],
  ["add_task", { title: "t", recurrence_pattern: "yearly" }, "recurrence_pattern", /expected one of/],
  ["list_tasks", { status: "done" }, "status", /expected one of/],
  ["list_tasks", { sort_by: "random" }, "sort_by", /expected one of/],
  ["search_tasks", { query: "a", priority: "urgent" }, "priority", /expected one of/],
  ["set_priority", { task_id: 1, priority: "critical" }, "priority", /expected one of/],
  ["get_recurring_tasks", { pattern: "hourly" }, "pattern", /expected one of/],
  // malformed dates
  ["add_task", { title: "t", due_date: "tomorrow" }, "due_date", /ISO 8601/],
  ["add_task", { title: "t", due_date: "2027-02-30" }, "due_date", /ISO 8601/],
  ["add_task", { title: "t", due_date: "2027-12-01T17:00:00" }, "due_date", /ISO 8601/],
  ["update_task", { task_id: 1, due_date: "12/01/2027" }, "due_date", /ISO 8601/],
  ["schedule_reminder", { task_id: 1, reminder_time: "next week" }, "reminder_time", /ISO 8601/],
];

describe("tool argument validation", () => {
  it.each(CASES)("%s %j is rejected naming %s, writing nothing", async (tool, args, field, says) => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const text = await callError(client, tool, args);
    await client.close();

    expect(text).toMatch(new RegExp(`\\b${field}\\b`));
    expect(text).toMatch(says);
    expect(text).not.toMatch(/\n\s+at /);
    expect(await countRows("tasks", user.id)).toBe(0);
    expect(await countRows("outbox", user.id)).toBe(0);
  });

  it("a rejected update leaves the task and the outbox untouched", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const task = await addTask(client, { title: "Keep me", priority: "low" });
    const eventsBefore = await outboxForUser(user.id);

    await callError(client, "update_task", { task_id: task.id, title: "Changed", priority: "urgent" });
    await callError(client, "set_priority", { task_id: task.id, priority: "critical" });
    await callError(client, "add_tags", { task_id: task.id, tags: [""] });

    const page = await callOk<{ tasks: unknown[] }>(client, "list_tasks");
    expect(page.tasks).toEqual([task]);
    expect(await outboxForUser(user.id)).toEqual(eventsBefore);
    await client.close();
  });
});

describe.each(ERAS)("unknown tool name (%s)", (era) => {
  it("is a JSON-RPC invalid-params error, not a tool result", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);
    await expect(client.callTool({ name: "drop_all_tasks", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Tool drop_all_tasks not found"),
    });
    await client.close();
  });
});

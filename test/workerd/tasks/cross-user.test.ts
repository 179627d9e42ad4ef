/**
 * One user can never see or touch another's task, and cannot even learn that it exists:
 * a foreign id is answered exactly like an id that does not exist.
 */
import { describe, expect, it } from "vitest";
import { callOk, connect } from "../../helpers/mcp";
import { addTask, callError, MISSING_ID, type Task, uniqueWord, withoutId } from "../../helpers/tasks";
import { api } from "../../helpers/rest";
import { countRows, outboxForUser } from "../../helpers/db";
import { createUser } from "../../helpers/users";

async function ownerWithTask() {
  const owner = await createUser();
  const ownerClient = await connect("tasks", owner.token);
  const word = uniqueWord();
  const task = await addTask(ownerClient, {
    title: `Private ${word}`,
    tags: ["secret"],
    due_date: "2020-01-01",
    recurrence_pattern: "daily",
  });
  return { owner, ownerClient, task, word };
}

const WRITES: [tool: string, args: Record<string, unknown>][] = [
  ["complete_task", {}],
  ["delete_task", {}],
  ["update_task", { title: "hijacked" }],
  ["set_priority", { priority: "high" }],
  ["add_tags", { tags: ["pwned"] }],
  ["schedule_reminder", { reminder_time: "2099-01-01T00:00:00Z" }],
];

describe("cross-user isolation over MCP", () => {
  it.each(WRITES)("%s on another user's task answers exactly like a missing id and changes nothing", async (tool, args) => {
    const { owner, ownerClient, task } = await ownerWithTask();
    const intruder = await createUser();
    const client = await connect("tasks", intruder.token);
    const ownerEvents = await outboxForUser(owner.id);

    const foreign = await callError(client, tool, { task_id: task.id, ...args });
    const missing = await callError(client, tool, { task_id: MISSING_ID, ...args });

    expect(withoutId(foreign, task.id)).toBe(withoutId(missing, MISSING_ID));
    const [still] = (await callOk<{ tasks: Task[] }>(ownerClient, "list_tasks")).tasks;
    expect(still).toEqual(task);
    expect(await outboxForUser(owner.id)).toEqual(ownerEvents);
    expect(await countRows("reminders", owner.id)).toBe(0);
    expect(await countRows("outbox", intruder.id)).toBe(0);
  });

  it("another user's tasks never appear in list, search, recurring or analytics", async () => {
    const { word } = await ownerWithTask();
    const intruder = await createUser();
    const client = await connect("tasks", intruder.token);

    expect(await callOk(client, "list_tasks", { tags: "secret" })).toEqual({ tasks: [], count: 0, next_cursor: null });
    expect(await callOk(client, "list_tasks", { search: word })).toMatchObject({ count: 0 });
    expect(await callOk(client, "search_tasks", { query: word })).toEqual({ tasks: [], count: 0 });
    expect(await callOk(client, "get_recurring_tasks")).toEqual({ tasks: [], count: 0 });
    expect(await callOk(client, "analytics_summary")).toMatchObject({ total: 0, overdue: 0 });
  });
});

describe("cross-user isolation over REST", () => {
  it("every task route answers a foreign id exactly like a missing one and changes nothing", async () => {
    const { owner, ownerClient, task } = await ownerWithTask();
    const intruder = await createUser();
    const routes: [string, string, Record<string, unknown>?][] = [
      ["GET", ""],
      ["PATCH", "", { title: "hijacked" }],
      ["DELETE", ""],
      ["POST", "/complete"],
      ["POST", "/tags", { tags: ["pwned"] }],
      ["GET", "/reminders"],
      ["POST", "/reminders", { reminder_time: "2099-01-01T00:00:00Z" }],
    ];
    const ownerEvents = await outboxForUser(owner.id);

    for (const [method, suffix, body] of routes) {
      const options = body ? { body } : {};
      const foreign = await api(intruder, method, `/api/tasks/${task.id}${suffix}`, options);
      const missing = await api(intruder, method, `/api/tasks/${MISSING_ID}${suffix}`, options);
      expect(foreign.status, `${method} ${suffix}`).toBe(404);
      expect(foreign.status).toBe(missing.status);
      expect(withoutId(JSON.stringify(foreign.body), task.id)).toBe(withoutId(JSON.stringify(missing.body), MISSING_ID));
    }

    const [still] = (await callOk<{ tasks: Task[] }>(ownerClient, "list_tasks")).tasks;
    expect(still).toEqual(task);
    expect(await outboxForUser(owner.id)).toEqual(ownerEvents);
    expect(await countRows("reminders", owner.id)).toBe(0);
  });

  it("lists, searches and stats show only the caller's own tasks", async () => {
    const { word } = await ownerWithTask();
    const intruder = await createUser();
    await api(intruder, "POST", "/api/tasks", { body: { title: "Mine" } });

    const list = await api<{ tasks: Task[] }>(intruder, "GET", "/api/tasks");
    expect(list.body.tasks.map((task) => task.title)).toEqual(["Mine"]);
    expect((await api(intruder, "GET", `/api/tasks/search?query=${word}`)).body).toEqual({ tasks: [], count: 0 });
    expect((await api(intruder, "GET", "/api/tasks/recurring")).body).toEqual({ tasks: [], count: 0 });
    expect((await api(intruder, "GET", "/api/tasks/stats")).body).toMatchObject({ total: 1, overdue: 0 });
  });
});

/**
 * Dates a user can store are limited to 0000-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z: the
 * instants whose ISO 8601 UTC text has a four-digit year, so comparing the stored text (reminders,
 * overdue, sort by due date, analytics) is comparing time. Past that range JavaScript writes
 * `+010000-…` or `-000001-…`, which sorts before every ordinary date. Every entry point is checked:
 * REST, MCP (SDK and fast path), the chat agent's natural-language dates, and recurrence.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChatResult } from "../../../workers/agent/agent.types";
import { openDb } from "../../../workers/lib/db";
import { fireDueReminders } from "../../../workers/tasks/reminders.cron";
import { warmUpChat } from "../../helpers/chat";
import { callOk, connect, ERAS } from "../../helpers/mcp";
import { api, type ErrorBody } from "../../helpers/rest";
import { addTask, callError, type Task } from "../../helpers/tasks";
import { countRows } from "../../helpers/db";
import { createUser, type TestUser } from "../../helpers/users";

const MAX = "9999-12-31T23:59:59.999Z";
const MIN = "0000-01-01T00:00:00.000Z";

/** Each names an instant outside the range, though every part of it is in range. */
const OUT_OF_RANGE = ["9999-12-31T23:59:59-23:59", "9999-12-31T23:00:00-01:00", "0000-01-01T00:00:00+00:01"];

async function storedDates(user: TestUser): Promise<string[]> {
  const { results } = await env.DB.prepare(
    "SELECT due_date AS at FROM tasks WHERE user_id = ?1 AND due_date IS NOT NULL UNION ALL SELECT remind_at FROM reminders WHERE user_id = ?1",
  )
    .bind(user.id)
    .all<{ at: string }>();
  return results.map((row) => row.at);
}

describe("REST refuses dates past the storable range", () => {
  it.each(OUT_OF_RANGE)("POST and PATCH /api/tasks with due_date %s are 400s naming due_date", async (due) => {
    const user = await createUser();
    const created = await api<ErrorBody>(user, "POST", "/api/tasks", { body: { title: "t", due_date: due } });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: "invalid_input", details: { field: "due_date" } });
    expect(created.body.error.message).toMatch(/due_date: .*9999-12-31T23:59:59\.999Z/);

    const task = await api<{ task: Task }>(user, "POST", "/api/tasks", { body: { title: "t" } });
    const patched = await api<ErrorBody>(user, "PATCH", `/api/tasks/${task.body.task.id}`, { body: { due_date: due } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details).toEqual({ field: "due_date" });

    const reminder = await api<ErrorBody>(user, "POST", `/api/tasks/${task.body.task.id}/reminders`, { body: { reminder_time: due } });
    expect(reminder.status).toBe(400);
    expect(reminder.body.error.details).toEqual({ field: "reminder_time" });
    expect(await storedDates(user)).toEqual([]);
    expect(await countRows("outbox", user.id)).toBe(1);
  });
});

describe.each(ERAS)("MCP refuses dates past the storable range (%s)", (era) => {
  it("add_task, update_task and schedule_reminder name the field and store nothing", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);
    const task = await addTask(client, { title: "anchor" });
    for (const due of OUT_OF_RANGE) {
      expect(await callError(client, "add_task", { title: "t", due_date: due })).toMatch(/\bdue_date\b.*9999-12-31T23:59:59\.999Z/);
      expect(await callError(client, "update_task", { task_id: task.id, due_date: due })).toMatch(/\bdue_date\b/);
      expect(await callError(client, "schedule_reminder", { task_id: task.id, reminder_time: due })).toMatch(/\breminder_time\b/);
    }
    expect(await storedDates(user)).toEqual([]);
    expect(await countRows("tasks", user.id)).toBe(1);
    await client.close();
  });
});

describe("the edges of the range", () => {
  it("are accepted, and reminders, overdue, sorting and analytics agree on them", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const last = await addTask(client, { title: "last", due_date: "9999-12-31T23:59:59.999+00:00" });
    const lastDay = await addTask(client, { title: "last-day", due_date: "9999-12-31" });
    const first = await addTask(client, { title: "first", due_date: "0000-01-01T00:00:00Z" });
    const soon = await addTask(client, { title: "soon", due_date: "2099-01-01" });
    expect([last.due_date, lastDay.due_date, first.due_date]).toEqual([MAX, "9999-12-31T00:00:00.000Z", MIN]);
    expect([last.overdue, lastDay.overdue, first.overdue, soon.overdue]).toEqual([false, false, true, false]);

    const sorted = await callOk<{ tasks: Task[] }>(client, "list_tasks", { sort_by: "due_date" });
    expect(sorted.tasks.map((task) => task.title)).toEqual(["first", "soon", "last-day", "last"]);
    expect((await callOk<{ overdue: number }>(client, "analytics_summary")).overdue).toBe(1);

    await callOk(client, "schedule_reminder", { task_id: soon.id, reminder_time: MAX });
    const fired = await fireDueReminders(openDb(env.DB));
    expect(fired.filter((event) => event.user_id === user.id)).toEqual([]);
    await client.close();
  });

  it("completing a recurring task whose next occurrence would fall past the range ends the series", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const monthly = await addTask(client, { title: "monthly", due_date: "9999-12-15T09:00:00Z", recurrence_pattern: "monthly" });
    const done = await callOk<{ task: Task; next_occurrence: Task | null }>(client, "complete_task", { task_id: monthly.id });
    expect(done.task.status).toBe("completed");
    expect(done.next_occurrence).toBeNull();
    expect(await storedDates(user)).toEqual(["9999-12-15T09:00:00.000Z"]);
    await client.close();
  });
});

describe("the chat agent's natural-language dates", () => {
  beforeAll(warmUpChat, 60_000);

  it("a date that lands past 9999 in UTC is refused by add_task, and nothing is stored", async () => {
    const user = await createUser();
    const res = await api<ChatResult>(user, "POST", "/api/chat", {
      body: { message: "add a task to pay rent on 9999-12-31 at 11pm", time_zone: "America/Los_Angeles" },
    });
    expect(res.status).toBe(200);
    expect(res.body.tool_calls).toMatchObject([{ name: "add_task", is_error: true }]);
    expect(JSON.stringify(res.body.tool_calls[0]!.result)).toMatch(/due_date/);
    expect(await storedDates(user)).toEqual([]);
    expect(await countRows("tasks", user.id)).toBe(0);
  });
});

describe("rows stored before the limit", () => {
  it("are clamped to the nearest end of the range by the migration", async () => {
    const user = await createUser();
    const insert = (title: string, due: string) =>
      env.DB.prepare("INSERT INTO tasks (user_id, title, description, due_date) VALUES (?, ?, ?, ?) RETURNING id")
        .bind(user.id, title, title, due)
        .first<{ id: number }>();
    const late = await insert("late", "+010000-01-01T23:58:59.000Z");
    const early = await insert("early", "-000001-12-31T23:00:00.000Z");
    const ordinary = await insert("ordinary", "2099-01-01T00:00:00.000Z");
    await env.DB.prepare("INSERT INTO reminders (task_id, user_id, remind_at) VALUES (?, ?, ?)")
      .bind(late!.id, user.id, "+010000-01-01T00:00:00.000Z")
      .run();

    const migration = env.TEST_MIGRATIONS.find((m) => m.name.includes("dates_in_storable_range"));
    expect(migration).toBeDefined();
    for (const query of migration!.queries) await env.DB.prepare(query).run();

    const rows = await env.DB.prepare("SELECT id, due_date FROM tasks WHERE user_id = ? ORDER BY id")
      .bind(user.id)
      .all<{ id: number; due_date: string }>();
    expect(rows.results).toEqual([
      { id: late!.id, due_date: MAX },
      { id: early!.id, due_date: MIN },
      { id: ordinary!.id, due_date: "2099-01-01T00:00:00.000Z" },
    ]);
    expect(await storedDates(user)).toContain(MAX);
    expect((await storedDates(user)).every((at) => at.length === MAX.length)).toBe(true);
  });
});

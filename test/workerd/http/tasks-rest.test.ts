import { describe, expect, it } from "vitest";
import { api } from "../../helpers/rest";
import { type Task, uniqueWord } from "../../helpers/tasks";
import { createUser, type TestUser } from "../../helpers/users";

interface Page {
  tasks: Task[];
  count: number;
  next_cursor: string | null;
}

async function create(user: TestUser, body: Record<string, unknown>): Promise<Task> {
  const res = await api<{ task: Task }>(user, "POST", "/api/tasks", { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task;
}

describe("REST /api/tasks", () => {
  it("creates a task and reads it back by id", async () => {
    const user = await createUser();
    const task = await create(user, { title: "Buy milk", tags: [" a ", "a", ""], due_date: "2027-04-01" });
    expect(task).toMatchObject({ id: expect.any(Number), description: "Buy milk", tags: ["a"], due_date: "2027-04-01T00:00:00.000Z" });

    const res = await api<{ task: Task }>(user, "GET", `/api/tasks/${task.id}`);
    expect(res.status).toBe(200);
    expect(res.body.task).toEqual(task);
  });

  it("lists with the MCP filters, coercing limit from the query string, and pages by cursor", async () => {
    const user = await createUser();
    for (const title of ["c", "a", "e", "b", "d"])
      await create(user, { title, tags: ["x", title], priority: title < "c" ? "high" : "low" });
    await create(user, { title: "other", tags: ["y"] });

    const filtered = await api<Page>(user, "GET", "/api/tasks?status=pending&priority=high&tags=x&sort_by=title");
    expect(filtered.body.tasks.map((task) => task.title)).toEqual(["a", "b"]);
    expect((await api<Page>(user, "GET", "/api/tasks?tags=x,%20c")).body.tasks.map((task) => task.title)).toEqual(["c"]);
    expect((await api<Page>(user, "GET", "/api/tasks?search=OTH")).body.tasks.map((task) => task.title)).toEqual(["other"]);

    const titles: string[] = [];
    let path = "/api/tasks?tags=x&sort_by=title&limit=2";
    for (;;) {
      const page = await api<Page>(user, "GET", path);
      expect(page.status).toBe(200);
      expect(page.body.count).toBeLessThanOrEqual(2);
      titles.push(...page.body.tasks.map((task) => task.title));
      if (!page.body.next_cursor) break;
      path = `/api/tasks?tags=x&sort_by=title&limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`;
    }
    expect(titles).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("updates with PATCH; null clears the due date and omitted fields stay", async () => {
    const user = await createUser();
    const task = await create(user, { title: "Draft", due_date: "2027-04-01", priority: "low", tags: ["t"] });

    const res = await api<{ task: Task }>(user, "PATCH", `/api/tasks/${task.id}`, { body: { title: "Final", due_date: null } });

    expect(res.status).toBe(200);
    expect(res.body.task).toMatchObject({ id: task.id, title: "Final", due_date: null, priority: "low", tags: ["t"] });
  });

  it("completes (toggling, with the next occurrence of a recurring task) and merges tags", async () => {
    const user = await createUser();
    const task = await create(user, { title: "Rent", due_date: "2027-01-31T10:00:00Z", recurrence_pattern: "monthly", tags: ["home"] });

    const done = await api<{ task: Task; next_occurrence: Task | null }>(user, "POST", `/api/tasks/${task.id}/complete`);
    expect(done.status).toBe(200);
    expect(done.body.task.status).toBe("completed");
    expect(done.body.next_occurrence).toMatchObject({ title: "Rent", due_date: "2027-02-28T10:00:00.000Z", status: "pending" });
    const reopened = await api<{ task: Task; next_occurrence: Task | null }>(user, "POST", `/api/tasks/${task.id}/complete`);
    expect(reopened.body).toMatchObject({ task: { status: "pending" }, next_occurrence: null });

    const tagged = await api<{ task: Task }>(user, "POST", `/api/tasks/${task.id}/tags`, { body: { tags: ["bills", " home ", ""] } });
    expect(tagged.status).toBe(200);
    expect(tagged.body.task.tags).toEqual(["home", "bills"]);

    const recurring = await api<{ tasks: Task[]; count: number }>(user, "GET", "/api/tasks/recurring?pattern=monthly");
    expect(recurring.body.tasks.map((t) => t.id).sort()).toEqual([task.id, done.body.next_occurrence!.id].sort());
    expect((await api<{ count: number }>(user, "GET", "/api/tasks/recurring?pattern=daily")).body.count).toBe(0);
  });

  it("searches (ranked, limit coerced) and reports stats", async () => {
    const user = await createUser();
    const word = uniqueWord();
    await create(user, { title: `${word} weekly`, priority: "high", due_date: "2020-01-01" });
    const done = await create(user, { title: "Unrelated" });
    await api(user, "POST", `/api/tasks/${done.id}/complete`);

    const found = await api<{ tasks: (Task & { rank: number })[]; count: number }>(user, "GET", `/api/tasks/search?query=${word}&limit=5`);
    expect(found.status).toBe(200);
    expect(found.body.tasks.map((task) => task.title)).toEqual([`${word} weekly`]);
    expect(typeof found.body.tasks[0]!.rank).toBe("number");

    const stats = await api(user, "GET", "/api/tasks/stats");
    expect(stats.body).toEqual({
      total: 2,
      completed: 1,
      pending: 1,
      completion_rate: 0.5,
      overdue: 1,
      by_priority: { high: 1, medium: 0, low: 0, none: 1 },
    });
  });

  it("schedules reminders and lists them", async () => {
    const user = await createUser();
    const task = await create(user, { title: "Call mum" });

    const created = await api<{ reminder: { id: number; task_id: number; reminder_time: string; sent_at: null } }>(
      user,
      "POST",
      `/api/tasks/${task.id}/reminders`,
      { body: { reminder_time: "2099-05-01T08:00:00+01:00" } },
    );
    expect(created.status).toBe(201);
    expect(created.body.reminder).toMatchObject({ task_id: task.id, reminder_time: "2099-05-01T07:00:00.000Z", sent_at: null });

    const listed = await api<{ reminders: { id: number }[] }>(user, "GET", `/api/tasks/${task.id}/reminders`);
    expect(listed.status).toBe(200);
    expect(listed.body.reminders.map((reminder) => reminder.id)).toEqual([created.body.reminder.id]);
  });

  it("deletes a task; afterwards it is not found", async () => {
    const user = await createUser();
    const task = await create(user, { title: "Temp" });

    const deleted = await api(user, "DELETE", `/api/tasks/${task.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, task: { id: task.id, title: "Temp" } });

    const gone = await api(user, "GET", `/api/tasks/${task.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: { code: "not_found", message: `Task ${task.id} not found` } });
  });
});

import { describe, expect, it } from "vitest";
import { callOk, connect } from "../../helpers/mcp";
import { addTask, callWithText, type Task } from "../../helpers/tasks";
import { countRows } from "../../helpers/db";
import { createUser } from "../../helpers/users";

interface Completion {
  task: Task;
  next_occurrence: Task | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

async function session() {
  const user = await createUser();
  return { user, client: await connect("tasks", user.token) };
}

describe("complete_task on a one-time task", () => {
  it("toggles between completed and pending", async () => {
    const { user, client } = await session();
    const task = await addTask(client, { title: "Once", due_date: "2020-01-01" });

    const { data: done, text: doneText } = await callWithText<Completion>(client, "complete_task", { task_id: task.id });
    expect(done.task).toMatchObject({ id: task.id, status: "completed", overdue: false });
    expect(done.task.completed_at).not.toBeNull();
    expect(done.next_occurrence).toBeNull();
    expect(doneText).toMatch(/^Completed #\d+ \[x\] Once/);

    const { data: reopened, text: reopenedText } = await callWithText<Completion>(client, "complete_task", { task_id: task.id });
    expect(reopened.task).toMatchObject({ status: "pending", completed_at: null, overdue: true });
    expect(reopenedText).toMatch(/^Reopened #\d+ \[ \] Once/);
    expect(await countRows("tasks", user.id)).toBe(1);
  });
});

describe("complete_task on a recurring task", () => {
  it.each([
    ["daily", "2027-03-10T09:00:00Z", "2027-03-11T09:00:00.000Z"],
    ["weekly", "2027-03-10T09:00:00Z", "2027-03-17T09:00:00.000Z"],
    ["monthly", "2027-03-10T09:00:00Z", "2027-04-10T09:00:00.000Z"],
    ["monthly", "2027-01-31T09:00:00Z", "2027-02-28T09:00:00.000Z"],
    ["monthly", "2028-01-31T09:00:00Z", "2028-02-29T09:00:00.000Z"],
    ["monthly", "2027-12-31T23:30:00Z", "2028-01-31T23:30:00.000Z"],
  ])("%s due %s creates the next occurrence due %s and says so", async (pattern, due, nextDue) => {
    const { client } = await session();
    const task = await addTask(client, {
      title: "Water plants",
      description: "All of them",
      due_date: due,
      priority: "medium",
      tags: ["home"],
      recurrence_pattern: pattern,
    });

    const { data, text } = await callWithText<Completion>(client, "complete_task", { task_id: task.id });
    const { task: done, next_occurrence: next } = data;

    expect(done.status).toBe("completed");
    expect(next).toMatchObject({
      title: "Water plants",
      description: "All of them",
      status: "pending",
      priority: "medium",
      tags: ["home"],
      recurrence_pattern: pattern,
      due_date: nextDue,
      completed_at: null,
    });
    expect(next!.id).not.toBe(task.id);
    expect(text).toContain(`Next occurrence created: #${next!.id}`);
    expect(text).toContain(`due ${nextDue}`);
  });

  it("without a due date, the next occurrence is due one period after completion", async () => {
    const { client } = await session();
    const task = await addTask(client, { title: "Stretch", recurrence_pattern: "daily" });
    const { task: done, next_occurrence: next } = await callOk<Completion>(client, "complete_task", { task_id: task.id });
    expect(Date.parse(next!.due_date!) - Date.parse(done.completed_at!)).toBe(DAY_MS);
  });

  it("completing again after reopening never spawns a second occurrence", async () => {
    const { user, client } = await session();
    const task = await addTask(client, { title: "Standup", due_date: "2027-06-01T08:00:00Z", recurrence_pattern: "daily" });

    const first = await callOk<Completion>(client, "complete_task", { task_id: task.id });
    const reopened = await callOk<Completion>(client, "complete_task", { task_id: task.id });
    const again = await callWithText<Completion>(client, "complete_task", { task_id: task.id });

    expect(first.next_occurrence).not.toBeNull();
    expect(reopened).toMatchObject({ task: { status: "pending" }, next_occurrence: null });
    expect(again.data.next_occurrence).toBeNull();
    expect(again.text).not.toContain("Next occurrence");
    expect(await countRows("tasks", user.id)).toBe(2);
  });
});

describe("get_recurring_tasks", () => {
  it("lists pending recurring tasks, soonest first, optionally of one pattern", async () => {
    const { client } = await session();
    const weekly = await addTask(client, { title: "Review", due_date: "2027-05-03", recurrence_pattern: "weekly" });
    const daily = await addTask(client, { title: "Journal", due_date: "2027-05-01", recurrence_pattern: "daily" });
    await addTask(client, { title: "One-off" });
    const { next_occurrence: nextDaily } = await callOk<Completion>(client, "complete_task", { task_id: daily.id });

    const all = await callOk<{ tasks: Task[]; count: number }>(client, "get_recurring_tasks");
    expect(all.tasks.map((task) => task.id)).toEqual([nextDaily!.id, weekly.id]);
    expect(all.count).toBe(2);

    const onlyWeekly = await callOk<{ tasks: Task[] }>(client, "get_recurring_tasks", { pattern: "weekly" });
    expect(onlyWeekly.tasks.map((task) => task.id)).toEqual([weekly.id]);

    const none = await callWithText(client, "get_recurring_tasks", { pattern: "monthly" });
    expect(none.data).toEqual({ tasks: [], count: 0 });
    expect(none.text).toBe("No recurring tasks.");
  });
});

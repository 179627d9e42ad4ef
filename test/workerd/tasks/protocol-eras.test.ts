/** The same tool behaviour for 2026-07-28 clients and for clients on the 2025 legacy lane. */
import { describe, expect, it } from "vitest";
import { callOk, connect, ERAS } from "../../helpers/mcp";
import { addTask, callError, callWithText, MISSING_ID, type Task } from "../../helpers/tasks";
import { countRows } from "../../helpers/db";
import { createUser } from "../../helpers/users";

describe.each(ERAS)("task tools over %s", (era) => {
  it("add, list, tag, complete (recurring), search, analytics, delete", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);

    const task = await addTask(client, {
      title: `Report ${era}`,
      tags: ["x", " x"],
      due_date: "2027-01-31",
      recurrence_pattern: "monthly",
    });
    expect(task).toMatchObject({ id: expect.any(Number), description: `Report ${era}`, tags: ["x"] });

    const page = await callOk<{ tasks: Task[]; next_cursor: string | null }>(client, "list_tasks", { limit: 10 });
    expect(page.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(page.next_cursor).toBeNull();

    const tagged = await callOk<{ task: Task }>(client, "add_tags", { task_id: task.id, tags: ["y"] });
    expect(tagged.task.tags).toEqual(["x", "y"]);

    const done = await callWithText<{ next_occurrence: Task | null }>(client, "complete_task", { task_id: task.id });
    expect(done.data.next_occurrence?.due_date).toBe("2027-02-28T00:00:00.000Z");
    expect(done.text).toContain("Next occurrence created");

    const found = await callOk<{ count: number }>(client, "search_tasks", { query: "report" });
    expect(found.count).toBe(2);
    expect(await callOk(client, "analytics_summary")).toMatchObject({ total: 2, completed: 1, completion_rate: 0.5 });

    const deleted = await callOk<{ deleted: boolean; task: Task }>(client, "delete_task", { task_id: task.id });
    expect(deleted).toMatchObject({ deleted: true, task: { id: task.id } });
    expect(await countRows("tasks", user.id)).toBe(1);
    await client.close();
  });

  it("reports validation and not-found errors as tool errors", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);

    expect(await callError(client, "add_task", { title: "x".repeat(201) })).toContain("title: must be at most 200 characters");
    expect(await callError(client, "list_tasks", { limit: 0 })).toContain("limit");
    expect(await callError(client, "add_task", { title: "t", due_date: "31/01/2027" })).toContain("due_date");
    expect(await callError(client, "complete_task", { task_id: MISSING_ID })).toBe(`not_found: Task ${MISSING_ID} not found`);
    expect(await countRows("tasks", user.id)).toBe(0);
    await client.close();
  });
});

import { describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { callOk, connect } from "../../helpers/mcp";
import { addTask, callError, callWithText, type Task } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

interface Page {
  tasks: Task[];
  count: number;
  next_cursor: string | null;
}

async function session() {
  const user = await createUser();
  return { user, client: await connect("tasks", user.token) };
}

async function titles(client: Client, args: Record<string, unknown>): Promise<string[]> {
  const page = await callOk<Page>(client, "list_tasks", args);
  return page.tasks.map((task) => task.title);
}

describe("list_tasks filters", () => {
  it("filters by status and priority", async () => {
    const { client } = await session();
    const done = await addTask(client, { title: "done-high", priority: "high" });
    await addTask(client, { title: "open-high", priority: "high" });
    await addTask(client, { title: "open-low", priority: "low" });
    await callOk(client, "complete_task", { task_id: done.id });

    expect(await titles(client, { status: "completed" })).toEqual(["done-high"]);
    expect(await titles(client, { status: "pending", sort_by: "title" })).toEqual(["open-high", "open-low"]);
    expect(await titles(client, { priority: "high", sort_by: "title" })).toEqual(["done-high", "open-high"]);
    expect(await titles(client, { status: "pending", priority: "high" })).toEqual(["open-high"]);
  });

  it("with comma-separated tags, returns only tasks carrying all of them", async () => {
    const { client } = await session();
    await addTask(client, { title: "both", tags: ["work", "urgent"] });
    await addTask(client, { title: "work-only", tags: ["work"] });
    await addTask(client, { title: "all-three", tags: ["home", "urgent", "work"] });
    await addTask(client, { title: "untagged" });

    expect(await titles(client, { tags: "work, urgent", sort_by: "title" })).toEqual(["all-three", "both"]);
    expect(await titles(client, { tags: " urgent,,work ,", sort_by: "title" })).toEqual(["all-three", "both"]);
    expect(await titles(client, { tags: "work", sort_by: "title" })).toEqual(["all-three", "both", "work-only"]);
    expect(await titles(client, { tags: "work,missing" })).toEqual([]);
  });

  it("search matches title or description as literal text", async () => {
    const { client } = await session();
    await addTask(client, { title: "Ship 100% of it" });
    await addTask(client, { title: "Ship 1000 things" });
    await addTask(client, { title: "Other", description: "mentions SHIP in the details" });

    expect(await titles(client, { search: "100%", sort_by: "title" })).toEqual(["Ship 100% of it"]);
    expect(await titles(client, { search: "ship", sort_by: "title" })).toEqual(["Other", "Ship 100% of it", "Ship 1000 things"]);
    expect(await titles(client, { search: "ship_", sort_by: "title" })).toEqual([]);
  });

  it("says so in the text when nothing matches", async () => {
    const { client } = await session();
    const { data, text } = await callWithText<Page>(client, "list_tasks", { status: "completed" });
    expect(data).toEqual({ tasks: [], count: 0, next_cursor: null });
    expect(text).toBe("No tasks match.");
  });
});

describe("list_tasks sort_by", () => {
  it("orders by created (newest first), due_date (soonest, undated last), priority and title", async () => {
    const { client } = await session();
    await addTask(client, { title: "banana", due_date: "2027-03-01", priority: "low" });
    await addTask(client, { title: "Apple", priority: "high" });
    await addTask(client, { title: "cherry", due_date: "2027-01-01", priority: "none" });
    await addTask(client, { title: "date", due_date: "2027-02-01", priority: "medium" });

    expect(await titles(client, {})).toEqual(["date", "cherry", "Apple", "banana"]);
    expect(await titles(client, { sort_by: "created" })).toEqual(["date", "cherry", "Apple", "banana"]);
    expect(await titles(client, { sort_by: "due_date" })).toEqual(["cherry", "date", "banana", "Apple"]);
    expect(await titles(client, { sort_by: "priority" })).toEqual(["Apple", "date", "banana", "cherry"]);
    expect(await titles(client, { sort_by: "title" })).toEqual(["Apple", "banana", "cherry", "date"]);
  });
});

describe("list_tasks paging", () => {
  it.each(["created", "due_date", "priority", "title"])("walks every page by next_cursor (sort_by %s)", async (sortBy) => {
    const { client } = await session();
    const created: Task[] = [];
    for (let i = 0; i < 7; i++) {
      created.push(await addTask(client, { title: `task ${i}`, priority: i % 2 ? "high" : "low", due_date: `2027-01-0${(i % 3) + 1}` }));
    }

    const seen: number[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const { data: page, text } = await callWithText<Page>(client, "list_tasks", {
        limit: 3,
        sort_by: sortBy,
        ...(cursor ? { cursor } : {}),
      });
      sizes.push(page.count);
      seen.push(...page.tasks.map((task) => task.id));
      if (page.next_cursor) expect(text).toContain(`pass cursor "${page.next_cursor}"`);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);

    expect(sizes).toEqual([3, 3, 1]);
    expect(new Set(seen).size).toBe(7);
    expect([...seen].sort((a, b) => a - b)).toEqual(created.map((task) => task.id));
    const unpaged = await callOk<Page>(client, "list_tasks", { sort_by: sortBy });
    expect(seen).toEqual(unpaged.tasks.map((task) => task.id));
  });

  it("returns no next_cursor when the last page is exactly full", async () => {
    const { client } = await session();
    await addTask(client, { title: "one" });
    await addTask(client, { title: "two" });
    const page = await callOk<Page>(client, "list_tasks", { limit: 2 });
    expect(page).toMatchObject({ count: 2, next_cursor: null });
  });

  it.each(["garbage!!", "e30", btoa('{"o":-1}'), btoa('{"o":1.5}'), btoa("[3]")])(
    "rejects the cursor %j with a clear error",
    async (cursor) => {
      const { client } = await session();
      const text = await callError(client, "list_tasks", { cursor });
      expect(text).toBe("invalid_input: cursor: not a cursor returned by list_tasks; omit it to start from the first page");
    },
  );
});

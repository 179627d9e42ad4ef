/**
 * The tags filter (list_tasks, search_tasks, GET /api/tasks?tags=) separates tags with commas, so a
 * tag containing a comma could be stored but never matched. Tags may not contain a comma: every
 * way of storing one is refused naming the field, and tags stored before the rule stay readable.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callOk, connect, ERAS } from "../../helpers/mcp";
import { api, type ErrorBody } from "../../helpers/rest";
import { addTask, callError, type Task } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

async function storedTags(userId: number): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT tags FROM tasks WHERE user_id = ? ORDER BY id").bind(userId).all<{ tags: string }>();
  return results.flatMap((row) => JSON.parse(row.tags) as string[]);
}

describe.each(ERAS)("a tag with a comma over MCP (%s)", (era) => {
  it("add_task, update_task and add_tags refuse it naming tags, and store nothing", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);
    const task = await addTask(client, { title: "anchor", tags: ["plain"] });
    for (const [tool, args] of [
      ["add_task", { title: "t", tags: ["ok", "a,b"] }],
      ["update_task", { task_id: task.id, tags: ["a,b"] }],
      ["add_tags", { task_id: task.id, tags: [",leading"] }],
    ] as const) {
      const text = await callError(client, tool, args);
      expect(text, tool).toMatch(/\btags\.\d: must not contain a comma/);
    }
    expect(await storedTags(user.id)).toEqual(["plain"]);
    await client.close();
  });
});

describe("a tag with a comma over REST", () => {
  it("POST, PATCH and POST …/tags are 400s naming the tag", async () => {
    const user = await createUser();
    const created = await api<{ task: Task }>(user, "POST", "/api/tasks", { body: { title: "anchor" } });
    const id = created.body.task.id;
    for (const [method, path, body] of [
      ["POST", "/api/tasks", { title: "t", tags: ["x,y"] }],
      ["PATCH", `/api/tasks/${id}`, { tags: ["x,y"] }],
      ["POST", `/api/tasks/${id}/tags`, { tags: ["x,y"] }],
    ] as const) {
      const res = await api<ErrorBody>(user, method, path, { body });
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_input", details: { field: "tags.0" } });
    }
    expect(await storedTags(user.id)).toEqual([]);
  });
});

describe("tags stored before the rule", () => {
  it("are still returned by every read, and the task's other tags still filter", async () => {
    const user = await createUser();
    await env.DB.prepare("INSERT INTO tasks (user_id, title, description, tags) VALUES (?, 'legacy', 'legacy', ?)")
      .bind(user.id, JSON.stringify(["x,y", "work"]))
      .run();
    const client = await connect("tasks", user.token);
    const page = await callOk<{ tasks: Task[] }>(client, "list_tasks", { tags: "work" });
    expect(page.tasks.map((task) => task.tags)).toEqual([["x,y", "work"]]);
    const rest = await api<{ tasks: Task[] }>(user, "GET", "/api/tasks");
    expect(rest.body.tasks[0]!.tags).toEqual(["x,y", "work"]);
    // Dropping the old tag is a plain update.
    const updated = await callOk<{ task: Task }>(client, "update_task", { task_id: page.tasks[0]!.id, tags: ["x", "y", "work"] });
    expect(updated.task.tags).toEqual(["x", "y", "work"]);
    expect((await callOk<{ tasks: Task[] }>(client, "list_tasks", { tags: "x,y" })).tasks).toHaveLength(1);
    await client.close();
  });

  it("the tags field's description says commas are not allowed", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const { tools } = await client.listTools();
    const addTaskTool = tools.find((tool) => tool.name === "add_task")!;
    const tags = (addTaskTool.inputSchema.properties as Record<string, { description?: string }>)["tags"]!;
    expect(tags.description).toMatch(/comma/i);
    await client.close();
  });
});

import { describe, expect, it } from "vitest";
import { TASKS } from "../contract/servers";
import { connect, ERAS } from "../../helpers/mcp";
import { createUser } from "../../helpers/users";

// The contracted lists (test/workerd/contract/servers.ts).
const TOOLS = TASKS.tools;
const READ_ONLY = TASKS.readOnly;

describe.each(ERAS)("tools/list on /mcp/tasks (%s)", (era) => {
  it("lists the 12 task tools with titles, descriptions, annotations and both schemas", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);
    const { tools } = await client.listTools();
    await client.close();

    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(30);
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: READ_ONLY.includes(tool.name),
        destructiveHint: tool.name === "delete_task",
        openWorldHint: false,
      });
      expect(typeof tool.annotations?.idempotentHint, tool.name).toBe("boolean");
    }
  });

  it("describes required arguments and the task id in single-task results", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);
    const { tools } = await client.listTools();
    await client.close();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));

    expect(byName.get("add_task")?.inputSchema.required).toEqual(["title"]);
    expect(byName.get("schedule_reminder")?.inputSchema.required).toEqual(["task_id", "reminder_time"]);
    expect(byName.get("add_task")?.outputSchema).toMatchObject({ properties: { task: { required: expect.arrayContaining(["id"]) } } });
    const limit = byName.get("list_tasks")?.inputSchema.properties?.["limit"];
    expect(limit).toMatchObject({ minimum: 1, maximum: 100 });
  });
});

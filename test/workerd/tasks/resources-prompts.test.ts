import { describe, expect, it } from "vitest";
import { callOk, connect, ERAS } from "../../helpers/mcp";
import { createUser } from "../../helpers/users";

describe.each(ERAS)("tasks resources, prompts and completions (%s)", (era) => {
  it("lists and reads task://{id}; a foreign id is not found", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const client = await connect("tasks", alice.token, era);
    const { task } = await callOk<{ task: { id: number } }>(client, "add_task", { title: "Resource me" });

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`task://${task.id}`);
    const read = await client.readResource({ uri: `task://${task.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: task.id, title: "Resource me" });

    const bobClient = await connect("tasks", bob.token, era);
    await expect(bobClient.readResource({ uri: `task://${task.id}` })).rejects.toThrow(/not found/i);
    await client.close();
    await bobClient.close();
  });

  it("completes the prompt's enum arguments and the resource id", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);
    const { task } = await callOk<{ task: { id: number } }>(client, "add_task", { title: "Complete me" });

    const priority = await client.complete({
      ref: { type: "ref/prompt", name: "review_tasks" },
      argument: { name: "priority", value: "h" },
    });
    expect(priority.completion.values).toEqual(["high"]);
    const status = await client.complete({
      ref: { type: "ref/prompt", name: "review_tasks" },
      argument: { name: "status", value: "" },
    });
    expect(status.completion.values).toEqual(["all", "pending", "completed"]);
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "task://{id}" },
      argument: { name: "id", value: String(task.id) },
    });
    expect(ids.completion.values).toContain(String(task.id));

    const prompt = await client.getPrompt({ name: "review_tasks", arguments: { status: "pending" } });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain("Complete me");
    await client.close();
  });
});

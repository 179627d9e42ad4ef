/**
 * /mcp federates the whole protocol beyond tools (decision 0068), through a plain SDK client:
 * server-everything's resources, templates, prompts and completions over HTTP (a sessionful source,
 * through its object) and through the stdio bridge, named `<slug>__…` with the scheme kept; the
 * tasks server of the upstream Worker as a stateless source (called from the isolate); and the
 * built-in tasks server's `task://{id}` and `review_tasks` unchanged beside them.
 */
import type { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { connectGateway, registerTasksSource, sourceRow } from "../../helpers/gateway";
import { callOk } from "../../helpers/mcp";
import { registerSource, upstreams } from "../../helpers/upstreams";
import { sourceStatus } from "../../helpers/upstreams-status";
import { createUser } from "../../helpers/users";

const ARCHITECTURE = "resource/static/document/architecture.md";

function textOfContents(result: Awaited<ReturnType<Client["readResource"]>>): string {
  const first = result.contents[0];
  return first && "text" in first ? String(first.text) : "";
}

function promptText(result: Awaited<ReturnType<Client["getPrompt"]>>): string {
  return result.messages.map((message) => (message.content.type === "text" ? message.content.text : "")).join("\n");
}

/** The everything server's features, listed, read, got and completed on /mcp under `slug`. */
async function everythingThrough(client: Client, slug: string): Promise<void> {
  const { resources } = await client.listResources();
  const named = `demo://${slug}__${ARCHITECTURE}`;
  expect(resources.map((resource) => resource.uri)).toContain(named);

  const read = await client.readResource({ uri: named });
  expect(read.contents[0]?.uri).toBe(named);
  expect(textOfContents(read).length).toBeGreaterThan(0);

  const { resourceTemplates } = await client.listResourceTemplates();
  const templates = resourceTemplates.map((template) => template.uriTemplate);
  expect(templates).toEqual(expect.arrayContaining([`demo://${slug}__resource/dynamic/text/{resourceId}`, "task://{id}"]));
  const made = await client.readResource({ uri: `demo://${slug}__resource/dynamic/text/3` });
  expect(made.contents[0]?.uri).toBe(`demo://${slug}__resource/dynamic/text/3`);

  const { prompts } = await client.listPrompts();
  const args = prompts.find((prompt) => prompt.name === `${slug}__args-prompt`);
  expect(args?.arguments).toEqual(expect.arrayContaining([expect.objectContaining({ name: "city", required: true })]));
  expect(prompts.map((prompt) => prompt.name)).toContain("review_tasks");
  const got = await client.getPrompt({ name: `${slug}__args-prompt`, arguments: { city: "Lisbon", state: "Lx" } });
  expect(promptText(got)).toContain("Lisbon");

  // An embedded resource in a prompt's answer comes back under its /mcp name.
  const embedded = await client.getPrompt({ name: `${slug}__resource-prompt`, arguments: { resourceType: "Text", resourceId: "2" } });
  const resource = embedded.messages.map((message) => message.content).find((content) => content.type === "resource");
  expect(resource?.type === "resource" && resource.resource.uri).toBe(`demo://${slug}__resource/dynamic/text/2`);

  const completed = await client.complete({
    ref: { type: "ref/prompt", name: `${slug}__completable-prompt` },
    argument: { name: "department", value: "Eng" },
  });
  expect(completed.completion.values).toEqual(["Engineering"]);
  const withContext = await client.complete({
    ref: { type: "ref/prompt", name: `${slug}__completable-prompt` },
    argument: { name: "name", value: "" },
    context: { arguments: { department: "Sales" } },
  });
  expect(withContext.completion.values).toEqual(["David", "Eve", "Frank"]);
  const variable = await client.complete({
    ref: { type: "ref/resource", uri: `demo://${slug}__resource/dynamic/text/{resourceId}` },
    argument: { name: "resourceId", value: "7" },
  });
  expect(variable.completion.values).toEqual(["7"]);
}

describe("server-everything's resources, prompts and completions on /mcp", { timeout: 90_000 }, () => {
  it("over HTTP, a sessionful source called through its object", async () => {
    const owner = await createUser();
    const { status, body } = await registerSource(owner, upstreams().everything_http, { name: "Every" });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(await sourceRow(body.source.id)).toMatchObject({ upstream_kind: "sessionful" });
    const client = await connectGateway(owner);
    await everythingThrough(client, "every");
    expect((await sourceStatus(body.source.id)).rpc["forward"]).toBeGreaterThanOrEqual(5);
  });

  it("over stdio through the bridge", async () => {
    const owner = await createUser();
    const { status, body } = await registerSource(owner, "", {
      name: "Bridged",
      url: upstreams().bridge,
      mcp_transport_type: "stdio",
      bridge_token: upstreams().bridge_token,
    });
    expect(status, JSON.stringify(body)).toBe(201);
    await everythingThrough(await connectGateway(owner), "bridged");
  });

  it("in the 2026-07-28 era too", async () => {
    const owner = await createUser();
    await registerSource(owner, upstreams().everything_http, { name: "Modern Every" });
    const client = await connectGateway(owner, { pin2026: true });
    const read = await client.readResource({ uri: `demo://modern_every__${ARCHITECTURE}` });
    expect(textOfContents(read).length).toBeGreaterThan(0);
    const got = await client.getPrompt({ name: "modern_every__simple-prompt" });
    expect(got.messages.length).toBeGreaterThan(0);
  });
});

describe("a stateless source's resources and prompts, and the built-ins'", { timeout: 60_000 }, () => {
  it("reads the tasks server of another Worker through the isolate, and the built-in task://{id} unchanged", async () => {
    const owner = await createUser();
    const { body } = await registerTasksSource(owner, owner, { name: "Remote" });
    expect(await sourceRow(body.source.id)).toMatchObject({ upstream_kind: "stateless" });
    const client = await connectGateway(owner);
    // One task, seen both as the built-in's task://<id> and as the source's task://remote__<id> (the same D1).
    const { task } = await callOk<{ task: { id: number } }>(client, "add_task", { title: "Federated task" });
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris).toEqual(expect.arrayContaining([`task://${task.id}`, `task://remote__${task.id}`]));

    const builtin = await client.readResource({ uri: `task://${task.id}` });
    expect(JSON.parse(textOfContents(builtin))).toMatchObject({ id: task.id, title: "Federated task" });
    const remote = await client.readResource({ uri: `task://remote__${task.id}` });
    expect(remote.contents[0]?.uri).toBe(`task://remote__${task.id}`);
    expect(JSON.parse(textOfContents(remote))).toMatchObject({ id: task.id, title: "Federated task" });

    const review = await client.getPrompt({ name: "review_tasks", arguments: { status: "pending" } });
    expect(promptText(review)).toContain("Federated task");
    const remoteReview = await client.getPrompt({ name: "remote__review_tasks", arguments: { status: "pending" } });
    expect(promptText(remoteReview)).toContain("Federated task");

    const builtinCompletion = await client.complete({
      ref: { type: "ref/prompt", name: "review_tasks" },
      argument: { name: "status", value: "pe" },
    });
    expect(builtinCompletion.completion.values).toEqual(["pending"]);
    const remoteCompletion = await client.complete({
      ref: { type: "ref/prompt", name: "remote__review_tasks" },
      argument: { name: "priority", value: "h" },
    });
    expect(remoteCompletion.completion.values).toEqual(["high"]);
    // No request went through the stateless source's object.
    expect((await sourceStatus(body.source.id)).rpc["forward"] ?? 0).toBe(0);
  });
});

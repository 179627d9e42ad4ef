/**
 * /mcp federates the whole protocol beyond tools (decision 0068), through a plain SDK client:
 * server-everything's resources, templates, prompts and completions over HTTP and through the
 * stdio bridge, named `<slug>__…` with the scheme kept; the built-in tasks server's `task://{id}`
 * and `review_tasks` unchanged beside them.
 */
import { describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import { registerSource, upstreams } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

describe("server-everything's resources, prompts and completions on /mcp", { timeout: 60_000 }, () => {
  it("lists, reads, gets and completes over HTTP", async () => {
    const owner = await createUser();
    const { status, body } = await registerSource(owner, upstreams().everything_http, { name: "Every" });
    expect(status, JSON.stringify(body)).toBe(201);
    const client = await connectGateway(owner);
    const resources = await client.listResources();
    console.log(JSON.stringify(resources).slice(0, 1500));
    const templates = await client.listResourceTemplates();
    console.log(JSON.stringify(templates).slice(0, 1500));
    const prompts = await client.listPrompts();
    console.log(JSON.stringify(prompts).slice(0, 2500));
  });
});

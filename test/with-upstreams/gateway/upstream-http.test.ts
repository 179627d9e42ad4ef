/**
 * Real remote upstreams over streamable HTTP: @modelcontextprotocol/server-everything (a 2025-era
 * server with sessions) and the fixture server's stateless paths, registered over REST and called
 * through the aggregated /mcp endpoint.
 */
import { describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { fixtureUrl, registerSource, toolNames, upstreams } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

describe("streamable HTTP upstreams", { timeout: 60_000 }, () => {
  it("registers server-everything and calls its echo and get-sum tools through /mcp", async () => {
    const owner = await createUser();
    const { status, body: registered } = await registerSource(owner, upstreams().everything_http, { name: "Everything" });
    expect(status, JSON.stringify(registered)).toBe(201);
    expect(registered.source.last_discovery_error).toBeNull();
    expect(registered.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "get-sum"]));

    const client = await connectGateway(owner);
    const names = await toolNames(client);
    expect(names).toContain("everything__echo");

    const echo = await client.callTool({ name: "everything__echo", arguments: { message: "hello upstream" } });
    expect(echo.isError, textOf(echo)).toBeFalsy();
    expect(textOf(echo)).toContain("hello upstream");
    expect(echo._meta).toMatchObject({ source: "everything" });

    const sum = await client.callTool({ name: "everything__get-sum", arguments: { a: 19, b: 23 } });
    expect(sum.isError, textOf(sum)).toBeFalsy();
    expect(textOf(sum)).toContain("42");
  });

  it("calls the fixture's echo tool", async () => {
    const owner = await createUser();
    const { body: registered } = await registerSource(owner, fixtureUrl("echo"), { name: "Fix Echo" });
    expect(registered.tools.map((tool) => tool.name)).toEqual(["echo"]);
    const client = await connectGateway(owner);
    const result = await client.callTool({ name: "fix_echo__echo", arguments: { a: 1 } });
    expect(result.structuredContent).toEqual({ a: 1 });
  });
});

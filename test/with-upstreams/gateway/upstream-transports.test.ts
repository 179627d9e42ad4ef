/**
 * The other transports against real upstreams: server-everything over legacy HTTP+SSE, and stdio
 * servers through `mcp-edge bridge` (server-everything, and the stdio fixture with a variable set
 * by the gateway through Mcp-Bridge-Env).
 */
import { describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { registerSource, toolNames, upstreams } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

function stdioSource(url: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { mcp_transport_type: "stdio", bridge_token: upstreams().bridge_token, ...overrides, url };
}

describe("legacy SSE upstream", { timeout: 60_000 }, () => {
  it("registers server-everything over HTTP+SSE and calls echo", async () => {
    const owner = await createUser();
    const { status, body: registered } = await registerSource(owner, upstreams().everything_sse, {
      name: "Sse Everything",
      mcp_transport_type: "sse",
    });
    expect(status, JSON.stringify(registered)).toBe(201);
    expect(registered.source.last_discovery_error).toBeNull();
    expect(registered.tools.map((tool) => tool.name)).toContain("echo");

    const client = await connectGateway(owner);
    const result = await client.callTool({ name: "sse_everything__echo", arguments: { message: "over sse" } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).toContain("over sse");
  });
});

describe("stdio upstreams through the bridge", { timeout: 60_000 }, () => {
  it("registers server-everything over stdio, lists <slug>__echo and calls get-sum", async () => {
    const owner = await createUser();
    const { status, body: registered } = await registerSource(owner, "", stdioSource(upstreams().bridge, { name: "Stdio Everything" }));
    expect(status, JSON.stringify(registered)).toBe(201);
    expect(registered.source.last_discovery_error).toBeNull();

    const client = await connectGateway(owner);
    expect(await toolNames(client)).toEqual(expect.arrayContaining(["stdio_everything__echo", "stdio_everything__get-sum"]));
    const sum = await client.callTool({ name: "stdio_everything__get-sum", arguments: { a: 2, b: 40 } });
    expect(sum.isError, textOf(sum)).toBeFalsy();
    expect(textOf(sum)).toContain("42");
  });

  it("passes the source's declared variables to the stdio process (singleton keeps one process)", async () => {
    const owner = await createUser();
    const {
      body: { source },
    } = await registerSource(
      owner,
      "",
      stdioSource(upstreams().bridge_fixture, {
        name: "Greeter",
        mcp_lifecycle_mode: "singleton",
        mcp_env_vars: [{ name: "FIXTURE_GREETING", value: "salaam from the gateway", secret: true }],
      }),
    );
    expect(source.last_discovery_error).toBeNull();
    const client = await connectGateway(owner);

    const greeting = await client.callTool({ name: "greeter__greeting", arguments: {} });
    expect(textOf(greeting)).toBe("salaam from the gateway");
    const first = textOf(await client.callTool({ name: "greeter__pid", arguments: {} }));
    const second = textOf(await client.callTool({ name: "greeter__pid", arguments: {} }));
    expect(second).toBe(first);
  });

  it("refuses a variable the bridge's manifest does not declare, naming it", async () => {
    const owner = await createUser();
    const { body: registered } = await registerSource(
      owner,
      "",
      stdioSource(upstreams().bridge_fixture, {
        name: "Sneaky",
        mcp_env_vars: [{ name: "NODE_OPTIONS", value: "--require /tmp/evil.js", secret: false }],
      }),
    );
    expect(registered.tools).toEqual([]);
    expect(registered.source.last_discovery_error).toContain("NODE_OPTIONS");
    expect(registered.source.last_discovery_error).not.toContain("evil");
  });

  it("answers a wrong bridge token with a connection error at discovery", async () => {
    const owner = await createUser();
    const { body: registered } = await registerSource(
      owner,
      "",
      stdioSource(upstreams().bridge, { name: "Bad Token", bridge_token: "not-the-token-at-all" }),
    );
    expect(registered.tools).toEqual([]);
    expect(registered.source.last_discovery_error).toContain("401");
  });
});

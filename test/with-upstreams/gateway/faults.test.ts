/**
 * Fault handling against real upstreams: a stdio process killed mid-call, an upstream that hangs,
 * one answering with something that is not JSON-RPC, an upstream restart that forgets sessions,
 * and a tool list that changes (list_changed flows into the /mcp listing). Also the source's
 * call window and the tools/list cache hint in its Durable Object status.
 */
import { describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { eventually } from "../../helpers/eventually";
import { controlFixture, fixtureUrl, registerSource, toolNames, upstreams } from "../../helpers/upstreams";
import { sourceStatus } from "../../helpers/upstreams-status";
import { createUser } from "../../helpers/users";

describe("gateway faults against real upstreams", { timeout: 60_000 }, () => {
  it("a stdio process killed mid-call answers a connection error, and the next call gets a fresh process", async () => {
    const owner = await createUser();
    const { body: registered } = await registerSource(owner, upstreams().bridge_fixture, {
      name: "Crashy",
      mcp_transport_type: "stdio",
      bridge_token: upstreams().bridge_token,
      mcp_lifecycle_mode: "singleton",
    });
    expect(registered.source.last_discovery_error).toBeNull();
    const client = await connectGateway(owner);
    const before = textOf(await client.callTool({ name: "crashy__pid", arguments: {} }));

    const crashed = await client.callTool({ name: "crashy__crash", arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(crashed._meta).toMatchObject({ source: "crashy", error_type: "connection" });
    expect(textOf(crashed)).toContain("exited");

    const after = await client.callTool({ name: "crashy__pid", arguments: {} });
    expect(after.isError, textOf(after)).toBeFalsy();
    expect(textOf(after)).toMatch(/^\d+$/);
    expect(textOf(after)).not.toBe(before);

    const { calls } = await sourceStatus(registered.source.id);
    expect(calls).toMatchObject({ window: 3, errors: 1, error_rate: 1 / 3 });
    expect(calls.last_error).toMatch(/^connection: /);
    expect(calls.p50_ms).not.toBeNull();
    expect(calls.last_success_at).not.toBeNull();
  });

  it("a hanging upstream answers `timeout` after the source's timeout_ms", async () => {
    const owner = await createUser();
    const { body: registered } = await registerSource(owner, fixtureUrl("hang"), { name: "Hangs", timeout_ms: 1500 });
    expect(registered.tools.map((tool) => tool.name)).toEqual(["wait_forever"]);
    const client = await connectGateway(owner);

    const result = await client.callTool({ name: "hangs__wait_forever", arguments: {} });
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ error_type: "timeout" });
    expect(textOf(result)).toContain("did not answer in time");
  });

  it("an answer that is not JSON-RPC is a `protocol` error", async () => {
    const owner = await createUser();
    await registerSource(owner, fixtureUrl("malformed"), { name: "Garbled" });
    const client = await connectGateway(owner);

    const result = await client.callTool({ name: "garbled__broken", arguments: {} });
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ error_type: "protocol" });
  });

  it("re-establishes the session transparently after the upstream restarts", async () => {
    const owner = await createUser();
    const {
      body: { source },
    } = await registerSource(owner, fixtureUrl("restartable"), { name: "Phoenix", mcp_lifecycle_mode: "singleton" });
    const client = await connectGateway(owner);
    expect(textOf(await client.callTool({ name: "phoenix__ping", arguments: {} }))).toBe("pong");
    const oldSession = (await sourceStatus(source.id)).sessionId;
    expect(oldSession).not.toBeNull();

    const restart = await controlFixture("/control/restart");
    expect(restart["sessions_forgotten"]).toBeGreaterThanOrEqual(1);

    const again = await client.callTool({ name: "phoenix__ping", arguments: {} });
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(textOf(again)).toBe("pong");
    const newSession = (await sourceStatus(source.id)).sessionId;
    expect(newSession).not.toBeNull();
    expect(newSession).not.toBe(oldSession);
  });

  it("follows notifications/tools/list_changed into the /mcp listing once the new tool is approved, and keeps the cache hint", async () => {
    const owner = await createUser();
    const {
      body: { source },
    } = await registerSource(owner, fixtureUrl("mutable"), { name: "Shifty", mcp_lifecycle_mode: "singleton" });
    expect(source.last_discovery_error).toBeNull();
    const status = await sourceStatus(source.id);
    expect(status.warm).toBe(true);
    // The fixture's tools/list says ttlMs 60000.
    expect(status.inventory_stale_at).not.toBeNull();
    expect(Date.parse(status.inventory_stale_at!)).toBeGreaterThan(Date.now() + 30_000);

    const fresh = `tool_${crypto.randomUUID().slice(0, 8)}`;
    const changed = await controlFixture("/control/mutable", { tools: ["alpha", fresh] });
    expect(changed["sessions_notified"]).toBeGreaterThanOrEqual(1);

    // A tool new since the owner approved the source's tools is held until they approve it (decision 0049).
    await eventually(async () => {
      const { body } = await api<{ source: { held_tool_count: number } }>(owner, "GET", `/api/sources/${source.id}`);
      return body.source.held_tool_count === 1 ? body : undefined;
    }, "list_changed to reach the inventory");
    const client = await connectGateway(owner);
    expect(await toolNames(client)).not.toContain(`shifty__${fresh}`);
    expect((await api(owner, "POST", `/api/sources/${source.id}/changes/approve`, { body: { tools: [fresh] } })).status).toBe(200);
    const names = await toolNames(client);
    expect(names).toContain(`shifty__${fresh}`);
    expect(names).toContain("shifty__alpha");
    expect(names).not.toContain("shifty__beta");
    const called = await client.callTool({ name: `shifty__${fresh}`, arguments: {} });
    expect(textOf(called)).toBe(`mutable:${fresh}`);
  });
});

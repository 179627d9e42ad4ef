/**
 * The two call paths (decision 0033), against real upstreams and the real source Durable Object:
 * what discovery learns (stateless or sessionful, the protocol version), that a stateless
 * source's calls never pass through its object (its RPC counts show only the reports sent after
 * the answers) while a sessionful one's do, a 2026-07-28-only upstream called without a handshake,
 * and a source whose upstream starts and stops keeping sessions, re-learned at rediscovery.
 */
import { describe, expect, it } from "vitest";
import { connectGateway, registerTasksSource, sourceRow } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { controlFixture, fixtureUrl, registerSource } from "../../helpers/upstreams";
import { sourceHealth, sourceStatus } from "../../helpers/upstreams-status";
import { createUser } from "../../helpers/users";

describe("a call path per kind of upstream", { timeout: 60_000 }, () => {
  it("learns a stateless upstream at discovery and never calls through its object", async () => {
    const owner = await createUser();
    const { body: registered } = await registerTasksSource(owner, owner, { name: "Direct", mcp_lifecycle_mode: "singleton" });
    expect(await sourceRow(registered.source.id)).toMatchObject({ upstream_kind: "stateless", protocol_version: "2025-11-25" });
    const before = await sourceStatus(registered.source.id);
    expect(before.warm).toBe(false);

    const client = await connectGateway(owner);
    for (let i = 0; i < 5; i++) {
      const result = await client.callTool({ name: "direct__add_task", arguments: { title: `direct ${i}` } });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result._meta).toMatchObject({ source: "direct" });
    }
    // The reports reached the object (health sends this isolate's pending ones first)…
    expect((await sourceHealth(owner, registered.source.id)).calls).toMatchObject({ window: 5, errors: 0 });
    const after = await sourceStatus(registered.source.id);
    // …but no call went through it, and the breaker was read from it at most once (a cold view).
    expect(after.rpc["callTool"] ?? 0).toBe(0);
    expect((after.rpc["breakerState"] ?? 0) - (before.rpc["breakerState"] ?? 0)).toBeLessThanOrEqual(1);
    expect(after.rpc["report"] ?? 0).toBeGreaterThanOrEqual(1);
    expect(after.warm).toBe(false);
  });

  it("calls a sessionful upstream through its object, which keeps the session", async () => {
    const owner = await createUser();
    const { body: registered } = await registerSource(owner, fixtureUrl("restartable"), { name: "Kept", mcp_lifecycle_mode: "singleton" });
    expect(await sourceRow(registered.source.id)).toMatchObject({ upstream_kind: "sessionful" });
    const client = await connectGateway(owner);
    expect(textOf(await client.callTool({ name: "kept__ping", arguments: {} }))).toBe("pong");
    expect(textOf(await client.callTool({ name: "kept__ping", arguments: {} }))).toBe("pong");
    const status = await sourceStatus(registered.source.id);
    expect(status.rpc["callTool"]).toBe(2);
    expect(status.rpc["report"] ?? 0).toBe(0);
    expect(status.sessionId).not.toBeNull();
    expect(status.warm).toBe(true);
    expect(status.calls).toMatchObject({ window: 2, errors: 0 });
  });

  it("calls a 2026-07-28-only upstream statelessly, adopting what discovery negotiated", async () => {
    const owner = await createUser();
    const { body: registered } = await registerSource(owner, fixtureUrl("modern"), { name: "Modern" });
    expect(registered.source.last_discovery_error).toBeNull();
    expect(registered.tools.map((tool) => tool.name)).toEqual(["echo"]);
    const row = await sourceRow(registered.source.id);
    expect(row).toMatchObject({ upstream_kind: "stateless", protocol_version: "2026-07-28" });
    expect(JSON.parse(String(row["discover_result"]))).toMatchObject({ supportedVersions: expect.arrayContaining(["2026-07-28"]) });

    const client = await connectGateway(owner);
    const result = await client.callTool({ name: "modern__echo", arguments: { said: "hello" } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ said: "hello" });
    expect((await sourceStatus(registered.source.id)).rpc["callTool"] ?? 0).toBe(0);
  });

  it("follows an upstream that starts keeping sessions, and stops again, at rediscovery", async () => {
    const owner = await createUser();
    await controlFixture("/control/switchable", { sessions: false });
    try {
      const { body: registered } = await registerSource(owner, fixtureUrl("switchable"), {
        name: "Turncoat",
        mcp_lifecycle_mode: "singleton",
      });
      const id = registered.source.id;
      const client = await connectGateway(owner);
      const which = async () => textOf(await client.callTool({ name: "turncoat__which", arguments: {} }));
      expect((await sourceRow(id))["upstream_kind"]).toBe("stateless");
      expect(await which()).toBe("stateless");
      expect((await sourceStatus(id)).rpc["callTool"] ?? 0).toBe(0);

      await controlFixture("/control/switchable", { sessions: true });
      expect((await api(owner, "POST", `/api/sources/${id}/refresh`)).status).toBe(200);
      expect((await sourceRow(id))["upstream_kind"]).toBe("sessionful");
      expect(await which()).toBe("sessionful");
      const sessionful = await sourceStatus(id);
      expect(sessionful.rpc["callTool"]).toBe(1);
      expect(sessionful.sessionId).not.toBeNull();

      await controlFixture("/control/switchable", { sessions: false });
      expect((await api(owner, "POST", `/api/sources/${id}/refresh`)).status).toBe(200);
      expect((await sourceRow(id))["upstream_kind"]).toBe("stateless");
      expect(await which()).toBe("stateless");
      const back = await sourceStatus(id);
      expect(back.rpc["callTool"]).toBe(1);
      // Nothing is kept open for an upstream that keeps no session.
      expect(back.warm).toBe(false);
    } finally {
      await controlFixture("/control/switchable", { sessions: false });
    }
  });
});

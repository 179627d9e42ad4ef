/**
 * Source health: the state rules, GET /api/sources/:id/health against real
 * upstreams (healthy, degraded by failed calls or discovery, unhealthy with the breaker open,
 * disabled), owner scoping, /health's caller-only list; plus the gateway's
 * tools/list cache hint and the new routes in /openapi.json.
 */
import { describe, expect, it } from "vitest";
import { BREAKER_THRESHOLD } from "../../../workers/gateway/calls/breaker";
import { healthState } from "../../../workers/gateway/catalog/source-health.rules";
import { GATEWAY_LIST_TTL_MS } from "../../../workers/gateway/catalog/gateway.server";
import { connectGateway, registerTasksSource } from "../../helpers/gateway";
import { connect } from "../../helpers/mcp";
import { api, type ErrorBody } from "../../helpers/rest";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

interface Health {
  source_id: number;
  slug: string;
  name: string;
  enabled: boolean;
  state: string;
  breaker: string;
  tool_count: number;
  last_discovered_at: string | null;
  last_discovery_error: string | null;
  calls: {
    window: number;
    errors: number;
    error_rate: number;
    p50_ms: number | null;
    p95_ms: number | null;
    last_success_at: string | null;
    last_error_at: string | null;
    last_error: string | null;
  };
}

const calls = (window: number, errors: number) => ({
  window,
  errors,
  error_rate: window === 0 ? 0 : errors / window,
  p50_ms: null,
  p95_ms: null,
  last_success_at: null,
  last_error_at: null,
  last_error: null,
});

describe("health state rules", () => {
  const discovered = { enabled: true, lastDiscoveredAt: "2026-11-21T00:00:00.000Z", lastDiscoveryError: null };
  it("applies disabled, unhealthy, degraded, unknown, healthy in that order", () => {
    expect(healthState({ ...discovered, enabled: false }, "open", calls(10, 10))).toBe("disabled");
    expect(healthState(discovered, "open", calls(0, 0))).toBe("unhealthy");
    expect(healthState(discovered, "half_open", calls(0, 0))).toBe("unhealthy");
    expect(healthState(discovered, "closed", calls(10, 3))).toBe("degraded");
    expect(healthState(discovered, "closed", calls(10, 2))).toBe("healthy");
    expect(healthState({ ...discovered, lastDiscoveryError: "timeout: x" }, "closed", calls(0, 0))).toBe("degraded");
    expect(healthState({ ...discovered, lastDiscoveredAt: null }, "closed", calls(0, 0))).toBe("unknown");
    expect(healthState({ ...discovered, lastDiscoveredAt: null }, "closed", calls(1, 0))).toBe("healthy");
  });
});

describe("GET /api/sources/:id/health", { timeout: 60_000 }, () => {
  it("is healthy after discovery and a successful call, with the call window; 404 for anyone else", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    const { body: registered } = await registerTasksSource(owner, owner, { name: "Fine" });
    const client = await connectGateway(owner);
    await client.callTool({ name: "fine__list_tasks", arguments: {} });

    const res = await api<Health>(owner, "GET", `/api/sources/${registered.source.id}/health`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      source_id: registered.source.id,
      slug: "fine",
      enabled: true,
      state: "healthy",
      breaker: "closed",
      tool_count: registered.tools.length,
      last_discovery_error: null,
      calls: { window: 1, errors: 0, error_rate: 0, last_error: null },
    });
    expect(res.body.calls.p50_ms).toEqual(expect.any(Number));
    expect(res.body.calls.last_success_at).toEqual(expect.any(String));

    const foreign = await api<ErrorBody>(stranger, "GET", `/api/sources/${registered.source.id}/health`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
  });

  it("is degraded when calls fail or the last discovery failed, disabled when switched off", async () => {
    const owner = await createUser();
    const { body: malformed } = await registerSource(owner, fixtureUrl("malformed"), { name: "Garbled" });
    expect(malformed.source.last_discovery_error).toBeNull();
    const client = await connectGateway(owner);
    const broken = await client.callTool({ name: "garbled__broken", arguments: {} });
    expect(broken.isError).toBe(true);
    const degraded = await api<Health>(owner, "GET", `/api/sources/${malformed.source.id}/health`);
    expect(degraded.body).toMatchObject({ state: "degraded", breaker: "closed", calls: { window: 1, errors: 1, error_rate: 1 } });
    expect(degraded.body.calls.last_error).toMatch(/^protocol:/);

    const {
      body: { source: unauthorised },
    } = await registerTasksSource(owner, owner, { name: "No Token", mcp_env_vars: [] });
    const noToken = await api<Health>(owner, "GET", `/api/sources/${unauthorised.id}/health`);
    // The upstream Worker's /mcp/tasks answers 401 with its Protected Resource Metadata: an OAuth upstream the owner has not connected.
    expect(noToken.body).toMatchObject({
      state: "needs_authorization",
      authorization: "needs_authorization",
      last_discovered_at: null,
      tool_count: 0,
    });
    expect(noToken.body.last_discovery_error).toMatch(/^authorization_required: /);

    await api(owner, "PATCH", `/api/sources/${unauthorised.id}`, { body: { enabled: false } });
    expect((await api<Health>(owner, "GET", `/api/sources/${unauthorised.id}/health`)).body.state).toBe("disabled");
  });

  it("is unhealthy while the circuit breaker is open", async () => {
    const owner = await createUser();
    const {
      body: { source },
    } = await registerTasksSource(owner, owner, { name: "Breaking" });
    // Discovery against the dead URL fails too (degraded); the calls then open the breaker.
    await api(owner, "PATCH", `/api/sources/${source.id}`, { body: { url: `${UPSTREAM_ORIGIN}/api/no-such-mcp-endpoint` } });
    const client = await connectGateway(owner);
    for (let i = 0; i < BREAKER_THRESHOLD; i++) await client.callTool({ name: "breaking__list_tasks", arguments: {} });
    const res = await api<Health>(owner, "GET", `/api/sources/${source.id}/health`);
    // The failed discovery counted towards the breaker too; refused calls are not in the window.
    expect(res.body).toMatchObject({ state: "unhealthy", breaker: "open", calls: { error_rate: 1 } });
    expect(res.body.calls.window).toBeGreaterThanOrEqual(BREAKER_THRESHOLD - 1);
    expect(res.body.calls.last_error).toMatch(/^connection:/);
  });
});

describe("GET /health with sources", { timeout: 60_000 }, () => {
  it("shows no sources publicly and the caller's own sources, counted by state, with a token; refuses a bad token", async () => {
    const owner = await createUser();
    const other = await createUser();
    const { body: mine } = await registerTasksSource(owner, owner, { name: "Listed" });
    await registerTasksSource(other, other, { name: "Not Mine" });

    const open = await api<{ status: string; sources?: unknown }>(undefined, "GET", "/health");
    expect(open.status).toBe(200);
    expect(open.body.sources).toBeUndefined();
    expect(JSON.stringify(open.body)).not.toMatch(/listed|not_mine/);

    const withToken = await api<{ sources: { total: number; healthy: number; mine: Health[] } }>(owner, "GET", "/health");
    expect(withToken.body.sources).toMatchObject({ total: 1, healthy: 1, degraded: 0, unhealthy: 0, disabled: 0, unknown: 0 });
    expect(withToken.body.sources.mine.map((h) => h.slug)).toEqual(["listed"]);
    expect(withToken.body.sources.mine[0]).toMatchObject({ source_id: mine.source.id, state: "healthy" });

    const bad = await api<ErrorBody>(undefined, "GET", "/health", { headers: { authorization: "Bearer not-a-real-token" } });
    expect(bad.status).toBe(401);
  });
});

describe("gateway listing metadata", () => {
  it("sends a private, short tools/list cache hint to 2026-07-28 clients", async () => {
    const user = await createUser();
    const client = await connectGateway(user, { pin2026: true });
    const result = await client.listTools();
    expect(result).toMatchObject({ ttlMs: GATEWAY_LIST_TTL_MS, cacheScope: "private" });
    // The built-in servers keep the SDK default.
    expect(await connect("tasks", user.token).then((c) => c.listTools())).not.toMatchObject({ ttlMs: GATEWAY_LIST_TTL_MS });
  });

  it("declares the new routes in /openapi.json", async () => {
    const res = await api<{ paths: Record<string, Record<string, unknown>> }>(undefined, "GET", "/openapi.json");
    expect(Object.keys(res.body.paths["/api/sources/{source_id}/health"]!)).toEqual(["get"]);
    expect(Object.keys(res.body.paths["/api/gateway/hidden-tools"]!)).toEqual(["get"]);
    expect(Object.keys(res.body.paths["/api/gateway/hidden-tools/{name}"]!).sort()).toEqual(["delete", "put"]);
    const body = JSON.stringify(res.body.paths["/api/sources"]);
    for (const field of ["bridge_token", "mcp_command", "mcp_args", "mcp_runtime_hint", "manifest", "hidden"])
      expect(body).toContain(field);
  });
});

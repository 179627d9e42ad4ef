/**
 * The source Durable Object's failure handling against real failing upstreams: a path on this
 * Worker that answers 404 to every MCP request. Connection failures are typed, retried only
 * before sending, and open the circuit breaker, which then answers at once.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admit, BREAKER_COOLDOWN_MS, BREAKER_THRESHOLD, CLOSED, recordFailure } from "../../../workers/gateway/calls/breaker";
import type { UpstreamConfig } from "../../../workers/gateway/sources/upstream.types";
import { connectGateway, registerTasksSource, TASKS_URL } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { createUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

function failingConfig(slug: string): UpstreamConfig {
  return {
    sourceId: 0,
    slug,
    // Outside /api (which answers a request without a token 401: alive and refusing, no breaker failure).
    url: `${UPSTREAM_ORIGIN}/no-such-mcp-endpoint`,
    headers: {},
    lifecycle: "transient",
    timeoutMs: 5_000,
    allowPrivateUpstreams: true,
    fingerprint: "failing",
  };
}

describe("source circuit breaker", () => {
  it("types connection failures, opens after the threshold and then answers without calling", async () => {
    const slug = `failing_${crypto.randomUUID().slice(0, 6)}`;
    const stub = env.GATEWAY_SOURCE.get(env.GATEWAY_SOURCE.idFromName(slug));
    const call = { name: "anything", argumentsJson: "{}", idempotent: false, output: "none" as const, maxResultBytes: 4 * 1024 * 1024 };

    for (let i = 0; i < BREAKER_THRESHOLD; i++) {
      const outcome = await stub.callTool(failingConfig(slug), call);
      expect(outcome.meta).toMatchObject({ source: slug, error_type: "connection" });
      expect(JSON.parse(outcome.resultJson)).toMatchObject({ isError: true });
    }
    expect((await stub.status()).breaker.state).toBe("open");

    const refused = await stub.callTool(failingConfig(slug), call);
    expect(refused.meta.error_type).toBe("circuit_open");
    expect(JSON.parse(refused.resultJson).content[0].text).toMatch(/circuit breaker is open/);
  });

  it("closes again when a discovery succeeds", async () => {
    const owner = await createUser();
    const { body: registered } = await registerTasksSource(owner, owner, { name: "Flaky" });
    const client = await connectGateway(owner);

    // Point the source at a failing URL: discovery fails but the inventory stays listed.
    const patched = await api<{ source: { last_discovery_error: string | null } }>(owner, "PATCH", `/api/sources/${registered.source.id}`, {
      body: { url: `${UPSTREAM_ORIGIN}/api/no-such-mcp-endpoint` },
    });
    expect(patched.body.source.last_discovery_error).toMatch(/^connection:/);
    for (let i = 0; i < BREAKER_THRESHOLD; i++) {
      const result = await client.callTool({ name: "flaky__list_tasks", arguments: {} });
      expect(result.isError).toBe(true);
      expect(result._meta).toMatchObject({ source: "flaky" });
    }
    const open = await client.callTool({ name: "flaky__list_tasks", arguments: {} });
    expect(open._meta).toMatchObject({ error_type: "circuit_open" });
    expect(textOf(open)).toContain("circuit breaker is open");

    // Back to the real server: a successful refresh closes the breaker and calls flow again.
    await api(owner, "PATCH", `/api/sources/${registered.source.id}`, { body: { url: TASKS_URL } });
    const ok = await client.callTool({ name: "flaky__list_tasks", arguments: {} });
    expect(ok.isError, textOf(ok)).toBeFalsy();
  });
});

describe("breaker state machine", () => {
  it("lets exactly one probe through after the cooldown; its failure re-opens at once", () => {
    let breaker = CLOSED;
    for (let i = 0; i < BREAKER_THRESHOLD; i++) breaker = recordFailure(breaker, 1_000);
    expect(breaker.state).toBe("open");
    expect(admit(breaker, 1_000 + BREAKER_COOLDOWN_MS - 1, false)).toMatchObject({ allowed: false, retryAfterMs: 1 });

    const probe = admit(breaker, 1_000 + BREAKER_COOLDOWN_MS, false);
    expect(probe).toMatchObject({ allowed: true, probe: true });
    if (!probe.allowed) throw new Error("unreachable");
    expect(admit(probe.next, 1_000 + BREAKER_COOLDOWN_MS, true).allowed).toBe(false);
    expect(recordFailure(probe.next, 50_000)).toEqual({ state: "open", failures: BREAKER_THRESHOLD + 1, openedAt: 50_000 });
  });
});

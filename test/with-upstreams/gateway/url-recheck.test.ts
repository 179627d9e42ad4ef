/**
 * A source's stored URL is checked again, with the setting in force, every time its Durable Object
 * opens a connection — not only at registration. A loopback source registered while
 * ALLOW_PRIVATE_UPSTREAMS was set stops being reached once the setting is gone: calls, refresh,
 * the scheduled rediscovery and a warm singleton connection all answer a typed `url_refused`
 * error, the breaker is left alone (the upstream did nothing wrong) and health says why.
 *
 * The Worker under test always has the setting (vitest.config.ts); "removed" is the gateway's
 * services built on the same bindings without it — the same services the Worker builds per request
 * and the cron builds per run, talking to the real Durable Object and the real fixture upstreams,
 * on both call paths (stateless: from the isolate; sessionful: through the object).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BREAKER_THRESHOLD } from "../../../workers/gateway/calls/breaker";
import { BreakerView } from "../../../workers/gateway/calls/breaker-view";
import { CallableToolCache } from "../../../workers/gateway/calls/callable-cache";
import { SourceCalls } from "../../../workers/gateway/calls/source-calls.service";
import { SourceDiscovery } from "../../../workers/gateway/discovery/source-discovery.service";
import { SourceHealthService } from "../../../workers/gateway/catalog/source-health.service";
import { SourceRegistry } from "../../../workers/gateway/registry/source-registry.service";
import { type ToolCallRecord, toolCallEvent } from "../../../workers/gateway/calls/tool-call-audit";
import { openDb } from "../../../workers/lib/db";
import { parseQueueEvent } from "../../../workers/queue-events";
import { sourceRow } from "../../helpers/gateway";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

const WITHOUT_SETTING = { ...env, ALLOW_PRIVATE_UPSTREAMS: undefined };
const REFUSED = /^url host 127\.0\.0\.1 is a loopback address \(loopback, 127\.0\.0\.0\/8\); allowed only with ALLOW_PRIVATE_UPSTREAMS$/;

type GatewayEnv = Pick<
  Env,
  | "GATEWAY_SOURCE"
  | "SOURCE_SECRETS_KEY"
  | "ALLOW_PRIVATE_UPSTREAMS"
  | "SELF_ORIGIN"
  | "GATEWAY_MAX_RESULT_BYTES"
  | "GATEWAY_MAX_SOURCES_PER_USER"
>;

/** The gateway's services as the Worker wires them, on `gatewayEnv`, with one isolate's breaker view. */
function gateway(gatewayEnv: GatewayEnv, audited: ToolCallRecord[] = []) {
  const db = openDb(env.DB);
  const breakers = new BreakerView();
  const callables = new CallableToolCache();
  const calls = new SourceCalls({
    db,
    env: gatewayEnv,
    upstreamFetch: (input, init) => fetch(input, init),
    audit: { record: (call) => audited.push(call) },
    breakers,
    callables,
    waitUntil: () => undefined,
  });
  const discovery = new SourceDiscovery({ db, env: gatewayEnv, breakers, callables });
  return {
    async call(userId: number, name: string, args: Record<string, unknown>) {
      const target = await calls.find(userId, name);
      if (!target) throw new Error(`${name} is not callable`);
      return calls.call(userId, target, args);
    },
    discovery,
    sources: new SourceRegistry({ db, env: gatewayEnv, discovery, breakers, callables }),
    health: new SourceHealthService(db, gatewayEnv.GATEWAY_SOURCE, breakers),
  };
}

function stub(sourceId: number) {
  return env.GATEWAY_SOURCE.get(env.GATEWAY_SOURCE.idFromName(String(sourceId)));
}

function resultText(resultJson: string): string {
  const result = JSON.parse(resultJson) as { isError?: boolean; content: { text: string }[] };
  expect(result.isError).toBe(true);
  return result.content[0]!.text;
}

describe("a loopback source after ALLOW_PRIVATE_UPSTREAMS is removed", { timeout: 60_000 }, () => {
  it("refuses calls and refresh with a typed error, leaves the breaker closed, audits and reports why", async () => {
    const owner = await createUser();
    const { body: source } = await registerSource(owner, fixtureUrl("echo"));
    expect(source.source.last_discovery_error).toBeNull();
    const name = `${source.source.slug}__echo`;
    expect((await gateway(env).call(owner.id, name, { said: "hi" })).meta.error_type).toBeUndefined();

    const audited: ToolCallRecord[] = [];
    const strict = gateway(WITHOUT_SETTING, audited);
    for (let i = 0; i < BREAKER_THRESHOLD + 1; i++) {
      const refused = await strict.call(owner.id, name, { said: "hi" });
      expect(refused.meta.error_type).toBe("url_refused");
      expect(resultText(refused.resultJson)).toMatch(/^url_refused: url host 127\.0\.0\.1 is a loopback address/);
    }
    // The refusals are typed outcomes the audit consumer accepts.
    expect(audited.map((call) => call.outcome)).toEqual(Array(BREAKER_THRESHOLD + 1).fill("url_refused"));
    expect(parseQueueEvent(toolCallEvent(audited[0]!)).success).toBe(true);

    const refreshed = await strict.sources.refresh(owner.id, source.source.id);
    expect(refreshed.source.last_discovery_error).toMatch(/^url_refused: /);
    expect(refreshed.source.last_discovery_error!.slice("url_refused: ".length)).toMatch(REFUSED);

    const health = await strict.health.get(owner.id, source.source.id);
    expect(health).toMatchObject({ breaker: "closed", state: "degraded", calls: { errors: BREAKER_THRESHOLD + 1 } });
    expect(health.calls.last_error).toMatch(/^url_refused: url host 127\.0\.0\.1/);
    expect(health.last_discovery_error).toMatch(/^url_refused: /);

    // With the setting back, the same source is reached again.
    expect((await gateway(env).call(owner.id, name, { said: "again" })).meta.error_type).toBeUndefined();
  });

  it("does not reuse a warm singleton connection opened under the old setting", async () => {
    const owner = await createUser();
    // A session-keeping upstream: its calls go through the source's Durable Object, which keeps the connection.
    const { body: source } = await registerSource(owner, fixtureUrl("restartable"), { mcp_lifecycle_mode: "singleton" });
    const name = `${source.source.slug}__ping`;
    expect((await gateway(env).call(owner.id, name, {})).meta.error_type).toBeUndefined();
    expect((await stub(source.source.id).status()).warm).toBe(true);

    const refused = await gateway(WITHOUT_SETTING).call(owner.id, name, {});
    expect(refused.meta.error_type).toBe("url_refused");
    // No connection is left open to deliver list_changed or serve the next call.
    expect((await stub(source.source.id).status()).warm).toBe(false);
  });

  it("records the refusal on the source in the scheduled rediscovery", async () => {
    const owner = await createUser();
    const { body: source } = await registerSource(owner, fixtureUrl("echo"));
    // What the source's alarm runs (through the inventory entry point), in a Worker without the setting.
    const run = await gateway(WITHOUT_SETTING).discovery.rediscover(source.source.id);
    expect(run).toBe("rediscovered");
    const row = await sourceRow(source.source.id);
    expect(String(row["last_discovery_error"])).toMatch(/^url_refused: url host 127\.0\.0\.1 is a loopback address/);
  });
});

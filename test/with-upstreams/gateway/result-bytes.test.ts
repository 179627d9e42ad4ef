/**
 * The bound on a tool result's bytes (GATEWAY_MAX_RESULT_BYTES, 4 MiB here as by default; decision
 * 0051), against hostile upstreams of test/upstreams/fixture-hostile-results.ts whose answers never
 * end: a call finishes only if the gateway stops reading while the body streams in, so the typed
 * `result_too_large` error proves the bound held there (no timing is measured). On every path: the
 * stateless one (a JSON body, an SSE event, a 2026-07-28 upstream; the call fast path and the SDK
 * path), a finished result past the bound, and the sessionful one through the source's Durable
 * Object, whose session keeps serving. The breaker takes a too-large answer as the upstream's
 * answer, not as an outage.
 */
import { describe, expect, it } from "vitest";
import { callThroughGateway } from "../../helpers/gateway";
import { textOf, workerFetch } from "../../helpers/mcp";
import { rpcRequest, rpcResponse } from "../../helpers/rpc";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { sourceHealth, sourceStatus } from "../../helpers/upstreams-status";
import { createUser, type TestUser } from "../../helpers/users";

const LIMIT = 4 * 1024 * 1024;
/** What the typed error says: the limit and the setting that changes it. */
const TOO_LARGE = new RegExp(`^result_too_large: .*${LIMIT} bytes.*\\(GATEWAY_MAX_RESULT_BYTES\\)`);
/** Short, so that a gateway reading on past the bound fails as `timeout` rather than hanging the test. */
const TIMEOUT_MS = 8_000;

async function hostileSource(owner: TestUser, behaviour: string, kind: "stateless" | "sessionful"): Promise<{ id: number; slug: string }> {
  const lifecycle = kind === "sessionful" ? { mcp_lifecycle_mode: "singleton" } : {};
  const name = `Flood ${crypto.randomUUID().slice(0, 6)}`;
  const { status, body } = await registerSource(owner, fixtureUrl(behaviour), { name, timeout_ms: TIMEOUT_MS, ...lifecycle });
  expect(status, JSON.stringify(body)).toBe(201);
  expect(body.source.last_discovery_error).toBeNull();
  return body.source;
}

/** A plain 2025-11-25 tools/call: the gateway's call fast path. */
async function fastPathCall(owner: TestUser, name: string): Promise<Record<string, unknown> | undefined> {
  const request = rpcRequest("/mcp", owner.token, "2025-11-25", { method: "tools/call", params: { name, arguments: {} } });
  const answer = await rpcResponse(await workerFetch(request));
  expect(answer.error, JSON.stringify(answer)).toBeUndefined();
  return answer.result;
}

describe("the bound on a tool result's bytes", { timeout: 60_000 }, () => {
  it.each([
    ["a JSON body", "endless-json"],
    ["an SSE event", "endless-sse"],
  ])("stateless path, %s that never ends: result_too_large naming the limit, on the fast path and the SDK path", async (_, behaviour) => {
    const owner = await createUser();
    const source = await hostileSource(owner, behaviour, "stateless");
    const name = `${source.slug}__flood`;

    const fast = await fastPathCall(owner, name);
    expect(fast?.["isError"]).toBe(true);
    expect(fast?.["_meta"]).toMatchObject({ source: source.slug, error_type: "result_too_large" });
    expect((fast?.["content"] as { text: string }[])[0]?.text).toMatch(TOO_LARGE);

    const sdk = await callThroughGateway(owner, name);
    expect(sdk.isError).toBe(true);
    expect(sdk._meta).toMatchObject({ error_type: "result_too_large" });
    expect(textOf(sdk)).toMatch(TOO_LARGE);

    // The upstream answered: its breaker does not count the calls as failures (the health read
    // first sends this isolate's reports of the two calls to the source's object).
    expect((await sourceHealth(owner, source.id)).calls).toMatchObject({ errors: 2 });
    expect((await sourceStatus(source.id)).breaker).toMatchObject({ state: "closed", failures: 0 });
  });

  it("stateless path, a 2026-07-28 upstream whose answer never ends: result_too_large", async () => {
    const owner = await createUser();
    const source = await hostileSource(owner, "endless-modern", "stateless");
    const result = await callThroughGateway(owner, `${source.slug}__flood`);
    expect(result._meta).toMatchObject({ error_type: "result_too_large" });
    expect(textOf(result)).toMatch(TOO_LARGE);
  });

  it("stateless path, a finished 6 MiB result: result_too_large", async () => {
    const owner = await createUser();
    const source = await hostileSource(owner, "big-json", "stateless");
    const fast = await fastPathCall(owner, `${source.slug}__big`);
    expect(fast?.["_meta"]).toMatchObject({ error_type: "result_too_large" });
    expect((fast?.["content"] as { text: string }[])[0]?.text).toMatch(TOO_LARGE);
  });

  it("sessionful path, an SSE event that never ends: result_too_large, and the source keeps serving", async () => {
    const owner = await createUser();
    const source = await hostileSource(owner, "endless-sessions", "sessionful");
    const flooded = await fastPathCall(owner, `${source.slug}__flood`);
    expect(flooded?.["_meta"]).toMatchObject({ source: source.slug, error_type: "result_too_large" });
    expect((flooded?.["content"] as { text: string }[])[0]?.text).toMatch(TOO_LARGE);

    const echoed = await callThroughGateway(owner, `${source.slug}__echo`, { after: "flood" });
    expect(echoed.isError, textOf(echoed)).toBeFalsy();
    expect(textOf(echoed)).toBe(JSON.stringify({ after: "flood" }));

    const status = await sourceStatus(source.id);
    expect(status.breaker).toMatchObject({ state: "closed", failures: 0 });
    expect(status.calls.last_error).toMatch(/^result_too_large: /);
  });
});

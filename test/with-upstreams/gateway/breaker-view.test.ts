/**
 * The breaker of a stateless source across isolates (decision 0033): each isolate's BreakerView
 * over the one authority, the source's real Durable Object. Two views stand for two isolates; a
 * view's clock is the real one shifted by a chosen offset, so "later" needs no waiting. Also, end
 * to end on /mcp: an open breaker answers at once without reaching the upstream.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BREAKER_COOLDOWN_MS, BREAKER_THRESHOLD } from "../../../workers/gateway/calls/breaker";
import { BREAKER_VIEW_TTL_MS, BreakerView } from "../../../workers/gateway/calls/breaker-view";
import type { CallReport } from "../../../workers/gateway/sources/upstream.types";
import { connectGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { sourceHealth, sourceStatus } from "../../helpers/upstreams-status";
import { createUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

const LEASE_MS = 10_000;

/** A source object of its own: ids far above the ones D1 hands out in these tests. */
function objectFor(id: number) {
  return () => env.GATEWAY_SOURCE.get(env.GATEWAY_SOURCE.idFromName(String(id)));
}

/** An isolate whose clock stands still at the moment it was made, plus `offsetMs` (moved by the test). */
function isolate(offsetMs: { value: number }): BreakerView {
  const base = Date.now();
  return new BreakerView(() => base + offsetMs.value);
}

const failure = (at: number): CallReport => ({
  at,
  ms: 5,
  error: "connection: upstream answered HTTP 502",
  breaker: "failure",
  probe: false,
});

/** Records `count` failed calls on `view` and waits until the object has them. */
async function fail(view: BreakerView, id: number, count: number, at = Date.now()): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) view.record(id, failure(at), objectFor(id), (promise) => pending.push(promise));
  await Promise.all(pending);
  await view.flush(id);
}

describe("a stateless source's breaker across isolates", () => {
  it("opens in the isolate that saw the failures on the call that makes the threshold", async () => {
    const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    const view = isolate({ value: 0 });
    expect(await view.admit(id, objectFor(id), LEASE_MS)).toMatchObject({ allowed: true, probe: false });
    // Recorded but not yet answered by the object: the isolate's own view counts them at once.
    for (let i = 0; i < BREAKER_THRESHOLD; i++) view.record(id, failure(Date.now()), objectFor(id), () => undefined);
    expect(await view.admit(id, objectFor(id), LEASE_MS)).toMatchObject({ allowed: false });
    await view.flush(id);
    expect((await objectFor(id)().status()).breaker).toMatchObject({ state: "open", failures: BREAKER_THRESHOLD });
  });

  it("reaches another isolate within the documented bound, not before", async () => {
    const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    const laterInB = { value: 0 };
    const a = isolate({ value: 0 });
    const b = isolate(laterInB);
    // B has looked at the breaker (closed) just now.
    expect(await b.admit(id, objectFor(id), LEASE_MS)).toMatchObject({ allowed: true });
    await fail(a, id, BREAKER_THRESHOLD);
    expect((await objectFor(id)().status()).breaker.state).toBe("open");

    // Within the bound B may still act on what it was told: the documented staleness.
    laterInB.value = BREAKER_VIEW_TTL_MS - 1;
    expect(await b.admit(id, objectFor(id), LEASE_MS)).toMatchObject({ allowed: true });
    // At the bound it reads the object again, and the open breaker answers at once.
    laterInB.value = BREAKER_VIEW_TTL_MS;
    const refused = await b.admit(id, objectFor(id), LEASE_MS);
    expect(refused.allowed).toBe(false);
    if (refused.allowed) throw new Error("unreachable");
    expect(refused.retryAfterMs).toBeGreaterThan(BREAKER_COOLDOWN_MS - BREAKER_VIEW_TTL_MS - 5_000);
    // A third isolate that never saw the source reads it on its first call.
    expect((await isolate({ value: 0 }).admit(id, objectFor(id), LEASE_MS)).allowed).toBe(false);
  });

  it("lets exactly one isolate send the half-open probe; its success closes the breaker for all", async () => {
    const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    const a = isolate({ value: 0 });
    const b = isolate({ value: 0 });
    // Failures old enough that the cooldown is over now.
    await fail(a, id, BREAKER_THRESHOLD, Date.now() - BREAKER_COOLDOWN_MS - 1_000);

    const first = await a.admit(id, objectFor(id), LEASE_MS);
    expect(first).toMatchObject({ allowed: true, probe: true });
    expect((await objectFor(id)().status()).breaker.state).toBe("half_open");
    // The other isolate is refused while the probe is out, and asks again only after the object's hint.
    const second = await b.admit(id, objectFor(id), LEASE_MS);
    expect(second.allowed).toBe(false);
    const rpcBefore = (await objectFor(id)().status()).rpc["admitProbe"];
    expect((await b.admit(id, objectFor(id), LEASE_MS)).allowed).toBe(false);
    expect((await objectFor(id)().status()).rpc["admitProbe"]).toBe(rpcBefore);

    const done: Promise<unknown>[] = [];
    a.record(id, { at: Date.now(), ms: 3, error: null, breaker: "success", probe: true }, objectFor(id), (promise) => done.push(promise));
    await Promise.all(done);
    expect((await objectFor(id)().status()).breaker.state).toBe("closed");
    expect(await a.admit(id, objectFor(id), LEASE_MS)).toMatchObject({ allowed: true, probe: false });
  });
});

describe("an open breaker on the stateless path", { timeout: 60_000 }, () => {
  it("answers circuit_open at once, without reaching the upstream or counting the refusal", async () => {
    const owner = await createUser();
    const { body: registered } = await registerSource(owner, fixtureUrl("echo"), { name: "Shut" });
    const id = registered.source.id;
    const setUrl = (url: string) => env.DB.prepare("UPDATE sources SET mcp_server_url = ? WHERE id = ?").bind(url, id).run();
    const client = await connectGateway(owner);
    // The upstream goes away behind the API's back: this isolate's calls fail and open the breaker.
    // (Not a path under /api: that answers 401, an upstream alive and refusing, which opens no breaker.)
    await setUrl(`${UPSTREAM_ORIGIN}/no-such-mcp-endpoint`);
    for (let i = 0; i < BREAKER_THRESHOLD; i++) {
      expect((await client.callTool({ name: "shut__echo", arguments: {} }))._meta).toMatchObject({ error_type: "connection" });
    }
    // It is back, but the breaker is open: a call that reached it would succeed.
    await setUrl(fixtureUrl("echo"));
    const refused = await client.callTool({ name: "shut__echo", arguments: { said: "hi" } });
    expect(refused).toMatchObject({ isError: true, _meta: { source: "shut", error_type: "circuit_open" } });
    expect(textOf(refused)).toMatch(/circuit breaker is open — retry in \d+ s/);
    const health = await sourceHealth(owner, id);
    expect(health).toMatchObject({ breaker: "open", state: "unhealthy", calls: { window: BREAKER_THRESHOLD, errors: BREAKER_THRESHOLD } });
    // No call went through the object either.
    expect((await sourceStatus(id)).rpc["callTool"] ?? 0).toBe(0);
  });
});

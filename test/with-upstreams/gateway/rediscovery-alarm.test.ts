/**
 * Rediscovery from each source's own alarm (decision 0067): every discovery sets the source's
 * GatewaySource object's alarm for the next one (the interval, sooner on the upstream's cache hint,
 * backing off while discoveries fail); the alarm rediscovers its source through the Worker's
 * inventory entry point; a deleted or disabled source's alarm does nothing and is not set again;
 * the cron only re-arms sources without an alarm. Alarms are rung with runDurableObjectAlarm, so
 * nothing here waits for a clock: each expected time is bounded by Date.now() read around the call.
 */
import { env } from "cloudflare:workers";
import {
  createExecutionContext,
  createScheduledController,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../workers/index";
import { rearmRediscoveryAlarms } from "../../../workers/gateway/discovery/rediscovery.cron";
import {
  DEFAULT_REDISCOVERY_MINUTES,
  MAX_REDISCOVERY_BACKOFF_MS,
  MIN_REDISCOVERY_GAP_MS,
  nextRediscoveryAt,
} from "../../../workers/gateway/discovery/rediscovery-timing";
import { openDb } from "../../../workers/lib/db";
import { sourceRow } from "../../helpers/gateway";
import { api } from "../../helpers/rest";
import { fixtureUrl, registerSource, upstreams } from "../../helpers/upstreams";
import { createUser, type TestUser } from "../../helpers/users";

const INTERVAL_MS = DEFAULT_REDISCOVERY_MINUTES * 60_000;

function objectOf(sourceId: number) {
  return env.GATEWAY_SOURCE.get(env.GATEWAY_SOURCE.idFromName(String(sourceId)));
}

async function alarmOf(sourceId: number): Promise<number | null> {
  return runInDurableObject(objectOf(sourceId), (_, state) => state.storage.getAlarm());
}

async function registered(owner: TestUser, url = fixtureUrl("echo")): Promise<number> {
  const { status, body } = await registerSource(owner, url);
  expect(status, JSON.stringify(body)).toBe(201);
  expect(body.source.last_discovery_error).toBeNull();
  return body.source.id;
}

/** Rings the source's alarm; returns the bounds of "now" around it and the alarm set afterwards. */
async function ring(sourceId: number): Promise<{ from: number; to: number; next: number | null }> {
  const from = Date.now();
  expect(await runDurableObjectAlarm(objectOf(sourceId)), "an alarm was set").toBe(true);
  const to = Date.now();
  return { from, to, next: await alarmOf(sourceId) };
}

function expectWithin(at: number | null, { from, to }: { from: number; to: number }, delayMs: number): void {
  expect(at).not.toBeNull();
  expect(at!).toBeGreaterThanOrEqual(from + delayMs);
  expect(at!).toBeLessThanOrEqual(to + delayMs);
}

describe("when a source is rediscovered next", () => {
  it("is the interval after a success, sooner on the upstream's cache hint but never within a minute", () => {
    const now = 1_000_000;
    const timing = { failures: 0, inventoryStaleAt: null, intervalMs: INTERVAL_MS, now };
    expect(nextRediscoveryAt(timing)).toBe(now + INTERVAL_MS);
    expect(nextRediscoveryAt({ ...timing, inventoryStaleAt: new Date(now + 5 * 60_000).toISOString() })).toBe(now + 5 * 60_000);
    expect(nextRediscoveryAt({ ...timing, inventoryStaleAt: new Date(now).toISOString() })).toBe(now + MIN_REDISCOVERY_GAP_MS);
    expect(nextRediscoveryAt({ ...timing, inventoryStaleAt: new Date(now + 2 * INTERVAL_MS).toISOString() })).toBe(now + INTERVAL_MS);
    expect(nextRediscoveryAt({ ...timing, intervalMs: 1_000 })).toBe(now + MIN_REDISCOVERY_GAP_MS);
  });

  it("backs off while discoveries fail: the interval, then twice as long each time, up to a day", () => {
    const now = 1_000_000;
    const after = (failures: number) => nextRediscoveryAt({ failures, inventoryStaleAt: null, intervalMs: INTERVAL_MS, now }) - now;
    expect([1, 2, 3, 4].map(after)).toEqual([INTERVAL_MS, 2 * INTERVAL_MS, 4 * INTERVAL_MS, 8 * INTERVAL_MS]);
    expect(after(7)).toBe(64 * INTERVAL_MS);
    expect(after(8)).toBe(MAX_REDISCOVERY_BACKOFF_MS);
    expect(after(1_000)).toBe(MAX_REDISCOVERY_BACKOFF_MS);
  });
});

describe("a source's rediscovery alarm", { timeout: 60_000 }, () => {
  it("is set when the source is registered, and its time noted on the source", async () => {
    const from = Date.now();
    const id = await registered(await createUser());
    const to = Date.now();
    const alarm = await alarmOf(id);
    expectWithin(alarm, { from, to }, INTERVAL_MS);
    expect((await sourceRow(id))["rediscover_at"]).toBe(new Date(alarm!).toISOString());

    // An upstream with a cache hint (60 s on this fixture) is rediscovered when it runs out, but
    // never within a minute of the discovery (which ended a little after the hint was taken).
    const hinted = await registered(await createUser(), fixtureUrl("mutable"));
    const scheduled = Date.now();
    const staleAt = Date.parse(String((await sourceRow(hinted))["inventory_stale_at"]));
    const hintedAlarm = await alarmOf(hinted);
    expect(hintedAlarm).toBeGreaterThanOrEqual(staleAt);
    expect(hintedAlarm).toBeLessThanOrEqual(scheduled + MIN_REDISCOVERY_GAP_MS);
  });

  it("rediscovers its source when it rings, and is set again for the next time", async () => {
    const id = await registered(await createUser());
    const before = (await sourceRow(id))["last_discovery_attempt_at"];
    const rung = await ring(id);
    const row = await sourceRow(id);
    expect(row["last_discovery_attempt_at"]).not.toBe(before);
    expect(Date.parse(String(row["last_discovery_attempt_at"]))).toBeGreaterThanOrEqual(rung.from - 1);
    expect(row["last_discovery_error"]).toBeNull();
    expectWithin(rung.next, rung, INTERVAL_MS);
    expect(row["rediscover_at"]).toBe(new Date(rung.next!).toISOString());
  });

  it("backs off while the upstream fails, keeps the inventory, and returns to the interval once it answers", async () => {
    const owner = await createUser();
    const id = await registered(owner);
    const { body: before } = await api<{ tools: unknown[] }>(owner, "GET", `/api/sources/${id}`);
    // The upstream goes away (its URL now answers 404), behind the API's back.
    await env.DB.prepare("UPDATE sources SET mcp_server_url = ? WHERE id = ?").bind(`${upstreams().fixture}/gone/mcp`, id).run();
    for (const factor of [1, 2, 4]) {
      const rung = await ring(id);
      expect((await sourceRow(id))["last_discovery_error"]).not.toBeNull();
      expectWithin(rung.next, rung, factor * INTERVAL_MS);
    }
    const { body: after } = await api<{ tools: unknown[] }>(owner, "GET", `/api/sources/${id}`);
    expect(after.tools.length).toBe(before.tools.length);

    await env.DB.prepare("UPDATE sources SET mcp_server_url = ? WHERE id = ?").bind(fixtureUrl("echo"), id).run();
    const back = await ring(id);
    expect((await sourceRow(id))["last_discovery_error"]).toBeNull();
    expectWithin(back.next, back, INTERVAL_MS);
  });

  it("goes with its source when the source is deleted", async () => {
    const owner = await createUser();
    const id = await registered(owner);
    expect(await alarmOf(id)).not.toBeNull();
    expect((await api(owner, "DELETE", `/api/sources/${id}`)).status).toBe(200);
    expect(await alarmOf(id)).toBeNull();
    expect(await runDurableObjectAlarm(objectOf(id))).toBe(false);
  });

  it("does nothing for a source deleted while it was set, and is not set again", async () => {
    const id = await registered(await createUser());
    // As a delete racing the alarm looks: the row is gone, the alarm still set.
    await env.DB.prepare("DELETE FROM sources WHERE id = ?").bind(id).run();
    const rung = await ring(id);
    expect(rung.next).toBeNull();
    expect(await env.DB.prepare("SELECT id FROM sources WHERE id = ?").bind(id).first()).toBeNull();
    // The object forgot the source: nothing is left to ring again.
    expect(await runInDurableObject(objectOf(id), (_, state) => state.storage.kv.get("rediscovery"))).toBeUndefined();
    expect(await runDurableObjectAlarm(objectOf(id))).toBe(false);
  });

  it("does not rediscover a disabled source nor ring again; enabling it discovers it and sets the alarm", async () => {
    const owner = await createUser();
    const id = await registered(owner);
    expect((await api(owner, "PATCH", `/api/sources/${id}`, { body: { enabled: false } })).status).toBe(200);
    const before = (await sourceRow(id))["last_discovery_attempt_at"];
    const rung = await ring(id);
    expect(rung.next).toBeNull();
    expect((await sourceRow(id))["last_discovery_attempt_at"]).toBe(before);

    const from = Date.now();
    expect((await api(owner, "PATCH", `/api/sources/${id}`, { body: { enabled: true } })).status).toBe(200);
    expectWithin(await alarmOf(id), { from, to: Date.now() }, INTERVAL_MS);
  });
});

describe("the cron's safety net", { timeout: 60_000 }, () => {
  /** As a source registered before alarms looks: no alarm, no time on its row. */
  async function withoutAlarm(id: number): Promise<void> {
    await runInDurableObject(objectOf(id), async (_, state) => {
      await state.storage.deleteAlarm();
    });
    await env.DB.prepare("UPDATE sources SET rediscover_at = NULL WHERE id = ?").bind(id).run();
  }

  it("sets an alarm for a source without one, when the interval since its last attempt ends, and leaves set alarms alone", async () => {
    const bare = await registered(await createUser());
    const armed = await registered(await createUser());
    const armedAt = await alarmOf(armed);
    await withoutAlarm(bare);
    // Its row then looks overdue as well: the alarm the object still has is kept.
    await env.DB.prepare("UPDATE sources SET rediscover_at = '2000-01-01T00:00:00.000Z' WHERE id = ?").bind(armed).run();

    const run = await rearmRediscoveryAlarms(openDb(env.DB), env);
    expect(run.failed).toBe(0);
    expect(run.rearmed).toBeGreaterThanOrEqual(2);
    const lastAttempt = Date.parse(String((await sourceRow(bare))["last_discovery_attempt_at"]));
    expect(await alarmOf(bare)).toBe(lastAttempt + INTERVAL_MS);
    expect((await sourceRow(bare))["rediscover_at"]).toBe(new Date(lastAttempt + INTERVAL_MS).toISOString());
    expect(await alarmOf(armed)).toBe(armedAt);
    expect((await sourceRow(armed))["rediscover_at"]).toBe(new Date(armedAt!).toISOString());
  });

  it("runs from the Worker's scheduled handler", async () => {
    const id = await registered(await createUser());
    await withoutAlarm(id);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(await alarmOf(id)).not.toBeNull();
    expect((await sourceRow(id))["rediscover_at"]).not.toBeNull();
  });
});

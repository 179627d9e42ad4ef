/**
 * The refresh gate in an object of its own (UpstreamRefreshLease, decision 0058). The source's
 * GatewaySource used to delete its leases when the source was deleted; this object is not told,
 * so a lease nobody ended (its holder's isolate died) is deleted once it has run out, by an alarm,
 * and a deleted source leaves nothing stored. Leases still running stay, and the alarm follows them.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

function leaseObject(name: string) {
  return env.UPSTREAM_REFRESH_LEASE.get(env.UPSTREAM_REFRESH_LEASE.idFromName(name));
}

function storedKeys(object: ReturnType<typeof leaseObject>): Promise<string[]> {
  return runInDurableObject(object, (_instance, state) => [...state.storage.kv.list()].map(([key]) => key));
}

describe("the refresh lease's own object", () => {
  it("deletes a lease its holder never ended once it has run out, and keeps one still running", async () => {
    const object = leaseObject("lease-left-behind");
    expect(await object.beginTokenRefresh(1, 1)).toEqual(expect.any(String));
    expect(await object.beginTokenRefresh(2, 600_000)).toEqual(expect.any(String));
    expect(await storedKeys(object)).toEqual(["refresh_lease:1", "refresh_lease:2"]);
    // Past the first lease's end (timers move workerd's clock).
    await new Promise((resolve) => setTimeout(resolve, 10));

    expect(await runDurableObjectAlarm(object), "an alarm was set for the first lease's end").toBe(true);
    expect(await storedKeys(object)).toEqual(["refresh_lease:2"]);
    const next = await runInDurableObject(object, (_instance, state) => state.storage.getAlarm());
    expect(next, "the alarm follows the lease still running").toEqual(expect.any(Number));
    expect(next! - Date.now()).toBeGreaterThan(60_000);
  });

  it("keeps nothing once every lease was ended", async () => {
    const object = leaseObject("leases-ended");
    const lease = await object.beginTokenRefresh(3, 600_000);
    await object.endTokenRefresh(3, lease!);
    expect(await storedKeys(object)).toEqual([]);
    await runDurableObjectAlarm(object);
    expect(await runInDurableObject(object, (_instance, state) => state.storage.getAlarm())).toBeNull();
    expect((await object.status()).rpc).toEqual({ beginTokenRefresh: 1, endTokenRefresh: 1 });
  });
});

/**
 * The one bounded cache every per-isolate cache uses (workers/lib/bounded-cache.ts): at most
 * `maxEntries`, the oldest write dropped first, nothing read back once `ttlMs` old.
 */
import { describe, expect, it } from "vitest";
import { BoundedCache } from "../../workers/lib/bounded-cache";

function clock(start = 1_000) {
  const time = { now: start };
  return { time, now: () => time.now };
}

describe("BoundedCache", () => {
  it("holds at most maxEntries: a write beyond drops the entry written longest ago", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 2 });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBe(2);
    expect(cache.get("c")).toBe(3);
  });

  it("writing a key again makes it the newest; reading it does not", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 2 });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("a", 10);
    cache.set("c", 3);
    expect(cache.get("b"), "b was the oldest write").toBeUndefined();
    expect(cache.get("a")).toBe(10);
    cache.get("a");
    cache.set("d", 4);
    expect(cache.get("a"), "a read is no write: a was the oldest").toBeUndefined();
    expect([cache.get("c"), cache.get("d")]).toEqual([3, 4]);
  });

  it("rewriting a key of a full cache evicts nothing else", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 2 });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("b", 20);
    expect([cache.get("a"), cache.get("b"), cache.size]).toEqual([1, 20, 2]);
  });

  it("reads an entry only while it is younger than ttlMs, and drops it when read after", () => {
    const { time, now } = clock();
    const cache = new BoundedCache<string, string>({ maxEntries: 8, ttlMs: 5_000, now });
    cache.set("k", "v");
    time.now += 4_999;
    expect(cache.get("k")).toBe("v");
    time.now += 1;
    expect(cache.get("k")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("counts a rewrite's age from the rewrite", () => {
    const { time, now } = clock();
    const cache = new BoundedCache<string, string>({ maxEntries: 8, ttlMs: 1_000, now });
    cache.set("k", "old");
    time.now += 900;
    cache.set("k", "new");
    time.now += 900;
    expect(cache.get("k")).toBe("new");
  });

  it("without ttlMs keeps an entry until it is evicted", () => {
    const { time, now } = clock();
    const cache = new BoundedCache<string, string>({ maxEntries: 1, now });
    cache.set("k", "v");
    time.now += 10 * 365 * 86_400_000;
    expect(cache.get("k")).toBe("v");
  });

  it("drops what deleteWhere picks, and only that", () => {
    const cache = new BoundedCache<string, { user: number }>({ maxEntries: 8 });
    cache.set("1:a", { user: 1 });
    cache.set("2:a", { user: 2 });
    cache.set("1:b", { user: 1 });
    cache.deleteWhere((value) => value.user === 1);
    expect([cache.get("1:a"), cache.get("1:b"), cache.get("2:a")]).toEqual([undefined, undefined, { user: 2 }]);
    expect(cache.delete("2:a")).toBe(true);
    expect(cache.delete("2:a")).toBe(false);
    cache.set("x", { user: 3 });
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it("refuses bounds that bound nothing", () => {
    expect(() => new BoundedCache({ maxEntries: 0 })).toThrow(/maxEntries must be a whole number of at least 1, not 0/);
    expect(() => new BoundedCache({ maxEntries: 1.5 })).toThrow(RangeError);
    expect(() => new BoundedCache({ maxEntries: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(() => new BoundedCache({ maxEntries: 1, ttlMs: 0 })).toThrow(/ttlMs must be above 0, not 0/);
    expect(() => new BoundedCache({ maxEntries: 1, ttlMs: Number.NaN })).toThrow(RangeError);
  });
});

/**
 * What an isolate keeps between requests, bounded: at most `maxEntries` entries, and with `ttlMs`
 * none read back once that old. Every per-isolate cache uses it (the isolate's are gathered in
 * workers/isolate-state.ts, docs/storage.md "Isolate memory"), so each states its two bounds in one
 * line instead of hand-writing the eviction.
 *
 * Eviction is by age of the write: a write beyond the bound drops the entry written longest ago,
 * and writing a key again makes it the newest. Reads do not reorder (no user needs LRU: the caches
 * here hold what was loaded or looked up, and a hot entry is written again when it expires). An
 * expired entry is dropped when read, or when it is the oldest at a write.
 */

export interface BoundedCacheOptions {
  /** At most this many entries (a whole number, at least 1). */
  maxEntries: number;
  /** An entry is read back only while younger than this (ms since its write); none: no age bound. */
  ttlMs?: number | undefined;
  /** The clock, epoch ms; tests bring their own. */
  now?: (() => number) | undefined;
}

interface Entry<V> {
  value: V;
  at: number;
}

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: BoundedCacheOptions) {
    if (!Number.isSafeInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new RangeError(`BoundedCache: maxEntries must be a whole number of at least 1, not ${options.maxEntries}`);
    }
    if (options.ttlMs !== undefined && !(options.ttlMs > 0)) {
      throw new RangeError(`BoundedCache: ttlMs must be above 0, not ${options.ttlMs}`);
    }
    this.maxEntries = options.maxEntries;
    this.ttlMs = options.ttlMs ?? Infinity;
    this.now = options.now ?? Date.now;
  }

  /** The value written for `key`, unless it has expired (then it is dropped) or was evicted. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at < this.ttlMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Writes `value` as the newest entry, dropping the oldest written while the cache is full. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, at: this.now() });
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Drops every entry `drop` picks (e.g. one user's, after they changed what it was made of). */
  deleteWhere(drop: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (drop(entry.value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }
}

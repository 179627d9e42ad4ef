/**
 * The single-flight gate for refreshing a user's upstream OAuth token of one source, across
 * isolates (decision 0040), as the UpstreamRefreshLease object keeps it (one object per source:
 * durable-objects/upstream-refresh-lease.do.ts; its caller: refresh-gate.ts). An authorization
 * server that rotates refresh tokens treats a second use of one as a replay and ends the grant, so
 * only one caller at a time may spend it.
 *
 * Free: the caller takes the lease (its id comes back) for `leaseMs` at most, refreshes, and ends
 * it. Held: the caller waits until the holder ends it (or the lease runs out) and gets null — it
 * reads the stored tokens again, which are the holder's fresh ones (or, when they did not change,
 * it asks again). The lease is stored (`refresh_lease:<user id>`), so a restarted object still
 * honours it; the waiters live in memory. A lease nobody ended is deleted once it has run out.
 */

const LEASE_PREFIX = "refresh_lease:";

export interface RefreshLease {
  id: string;
  /** Epoch ms: a holder that never ends its lease (its isolate died) frees it then. */
  until: number;
}

export class RefreshLeases {
  /** Callers waiting for a user's refresh to end, per user id. */
  private readonly waiters = new Map<number, Set<() => void>>();

  constructor(private readonly kv: SyncKvStorage) {}

  /** The lease's id when the caller takes it; null after waiting for another holder. */
  async begin(userId: number, leaseMs: number): Promise<{ taken: RefreshLease } | null> {
    const key = `${LEASE_PREFIX}${userId}`;
    const now = Date.now();
    const held = this.kv.get<RefreshLease>(key);
    if (!held || held.until <= now) {
      const taken = { id: crypto.randomUUID(), until: now + leaseMs } satisfies RefreshLease;
      this.kv.put(key, taken);
      return { taken };
    }
    const waiters = this.waiters.get(userId) ?? new Set<() => void>();
    this.waiters.set(userId, waiters);
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiters.get(userId) === waiters) this.waiters.delete(userId);
        resolve();
      };
      const timer = setTimeout(wake, held.until - now);
      waiters.add(wake);
    });
    return null;
  }

  /** The holder of `leaseId` is done (refreshed, or failed and recorded why): the waiters read the tokens again. */
  end(userId: number, leaseId: string): void {
    const key = `${LEASE_PREFIX}${userId}`;
    // A holder whose lease ran out and was taken by another must not end the new holder's.
    if (this.kv.get<RefreshLease>(key)?.id !== leaseId) return;
    this.kv.delete(key);
    const waiters = this.waiters.get(userId);
    this.waiters.delete(userId);
    for (const wake of waiters ?? []) wake();
  }

  /** Deletes the leases that ran out by `now` unended; when the next of the others runs out, if any is left. */
  sweep(now: number): number | undefined {
    let next: number | undefined;
    for (const [key, lease] of [...this.kv.list<RefreshLease>({ prefix: LEASE_PREFIX })]) {
      if (lease.until <= now) this.kv.delete(key);
      else next = Math.min(next ?? Infinity, lease.until);
    }
    return next;
  }
}

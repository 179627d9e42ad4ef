/**
 * How many stdio processes the bridge runs: at most `maxPerToken` for the holders of one bearer
 * token and `maxTotal` in all, so a client flooding `initialize` (each one spawns a process that
 * lives until DELETE or the idle timeout) cannot exhaust the machine, and one token cannot take
 * every slot from the others. A slot is taken before a process is spawned — concurrent
 * initializes cannot overshoot — and given back when the process has exited.
 */
export type LimitName = "max_processes_per_token" | "max_processes";

/** The command-line flag that sets each limit, named in refusals so an operator knows what to raise. */
export const LIMIT_FLAGS: Record<LimitName, string> = {
  max_processes_per_token: "--max-processes-per-token",
  max_processes: "--max-processes",
};

export interface Slot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
}

/** Which limit is reached: per token → HTTP 429 (this client is over its share), in total → 503 (the bridge is full). */
export interface LimitReached {
  limit: LimitName;
  max: number;
  status: 429 | 503;
}

export class ProcessLimits {
  private total = 0;
  private readonly byToken = new Map<number, number>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerToken: number,
  ) {}

  /** A slot for a process about to start for `token` (the index of the token that authenticated), or the limit reached. */
  acquire(token: number): Slot | LimitReached {
    const mine = this.byToken.get(token) ?? 0;
    if (mine >= this.maxPerToken) return { limit: "max_processes_per_token", max: this.maxPerToken, status: 429 };
    if (this.total >= this.maxTotal) return { limit: "max_processes", max: this.maxTotal, status: 503 };
    this.total++;
    this.byToken.set(token, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.byToken.get(token) ?? 1) - 1;
        if (left > 0) this.byToken.set(token, left);
        else this.byToken.delete(token);
      },
    };
  }

  running(token?: number): number {
    return token === undefined ? this.total : (this.byToken.get(token) ?? 0);
  }
}

export function isLimitReached(value: Slot | LimitReached): value is LimitReached {
  return "limit" in value;
}

/** Thrown where a process would start; the bridge answers it with `status`, Retry-After and a BRIDGE_AT_CAPACITY error. */
export class CapacityRefused extends Error {
  override readonly name = "CapacityRefused";

  constructor(
    readonly reached: LimitReached,
    readonly retryAfterS: number,
  ) {
    const flag = `${LIMIT_FLAGS[reached.limit]} ${reached.max}`;
    super(
      reached.limit === "max_processes_per_token"
        ? `bridge at capacity: this token already runs ${reached.max} processes (${flag}); retry after ${retryAfterS} s`
        : `bridge at capacity: it runs ${reached.max} processes in all (${flag}); retry after ${retryAfterS} s`,
    );
  }

  get data(): { limit: LimitName; max: number; retry_after_s: number } {
    return { limit: this.reached.limit, max: this.reached.max, retry_after_s: this.retryAfterS };
  }
}

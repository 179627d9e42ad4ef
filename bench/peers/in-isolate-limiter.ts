/**
 * The `+limiter-in-isolate` variant of `--compare` (bench/lib/compare.ts): a commit's Worker with
 * its per-user Rate Limiting bindings answered by a counter in the Worker's own isolate instead of
 * Miniflare's emulation. Every tool call and REST request still spends its unit, through the same
 * code (`RateLimitService.spend`), before anything runs; only what the binding costs changes.
 *
 * Why: Miniflare emulates each `limit()` as a fetch to an entry Worker, then to a Durable Object
 * that reads and writes its counter in on-disk SQLite — in the process the bench measures. On
 * Cloudflare the binding is the runtime's own (a local counter, synchronised in the background), so
 * this variant reports what that emulation adds to each call, beside the headline rows that keep
 * it. It is a measurement aid, never a headline row (decision in docs/decisions/, "the tool-call
 * limit's local cost").
 *
 * Counting as Miniflare does: fixed windows aligned to the period, per key.
 */
interface Window {
  epoch: number;
  count: number;
}

class InIsolateLimiter implements RateLimit {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limitPerPeriod: number,
    private readonly periodSeconds: number,
  ) {}

  limit({ key }: RateLimitOptions): Promise<RateLimitOutcome> {
    const epoch = Math.floor(Date.now() / (this.periodSeconds * 1000));
    let window = this.windows.get(key);
    if (!window || window.epoch !== epoch) this.windows.set(key, (window = { epoch, count: 0 }));
    if (window.count >= this.limitPerPeriod) return Promise.resolve({ success: false });
    window.count++;
    return Promise.resolve({ success: true });
  }
}

/** "100000000/10s" (the bench's raised vars, bench/lib/rate-limits.ts) → a limiter of that size. */
function limiterFor(described: string | undefined): InIsolateLimiter {
  const match = /^(\d+)\/(10|60)s$/.exec(described ?? "");
  if (!match) throw new Error(`in-isolate limiter: cannot read the limit "${described}"`);
  return new InIsolateLimiter(Number(match[1]), Number(match[2]));
}

/** One wrapped env per env object the runtime hands in, so per-env caches keep working. */
const wrapped = new WeakMap<Env, Env>();
let limiters: { tool: InIsolateLimiter; api: InIsolateLimiter } | undefined;

export function withInIsolateLimiters(env: Env): Env {
  let result = wrapped.get(env);
  if (!result) {
    limiters ??= { tool: limiterFor(env.TOOL_CALL_RATE_LIMIT), api: limiterFor(env.API_RATE_LIMIT) };
    result = { ...env, TOOL_CALL_LIMITER: limiters.tool, API_REQUEST_LIMITER: limiters.api };
    wrapped.set(env, result);
  }
  return result;
}

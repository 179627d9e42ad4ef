/**
 * The bench drives one user far past the shipped per-user limits (wrangler.toml: TOOL_CALL_LIMITER
 * and API_REQUEST_LIMITER), which would turn most of its answers into `rate_limited` refusals. It
 * raises both limits rather than removing the bindings, so every measured request still pays for
 * the limiter's check, as it does in production.
 */
import { z } from "zod";
import type { WorkerOptions } from "./workerd";

const BENCH_LIMIT = 100_000_000;
const PER_USER_LIMITERS = { TOOL_CALL_LIMITER: "TOOL_CALL_RATE_LIMIT", API_REQUEST_LIMITER: "API_RATE_LIMIT" } as const;

/** Miniflare's `ratelimits` option, as wrangler derives it from [[ratelimits]]. */
const rateLimitBindings = z.record(
  z.string(),
  z.looseObject({
    namespace_id: z.string(),
    simple: z.object({ limit: z.number(), period: z.union([z.literal(10), z.literal(60)]).optional() }),
  }),
);

/** Whether a config has the per-user limiters (commits from before them have none, or only the registration limiter). */
export function hasPerUserLimiters(options: WorkerOptions): boolean {
  const ratelimits = rateLimitBindings.parse(options.ratelimits ?? {});
  return Object.keys(PER_USER_LIMITERS).every((name) => ratelimits[name] !== undefined);
}

export function withBenchRateLimits(options: WorkerOptions): WorkerOptions {
  const ratelimits = rateLimitBindings.parse(options.ratelimits ?? {});
  const vars: Record<string, string> = {};
  for (const [name, describedBy] of Object.entries(PER_USER_LIMITERS)) {
    const shipped = ratelimits[name];
    if (!shipped) throw new Error(`wrangler.toml has no [[ratelimits]] ${name}`);
    ratelimits[name] = { ...shipped, simple: { ...shipped.simple, limit: BENCH_LIMIT } };
    vars[describedBy] = `${BENCH_LIMIT}/${shipped.simple.period ?? 60}s`;
  }
  const bindings: object = typeof options.bindings === "object" && options.bindings !== null ? options.bindings : {};
  return { ...options, ratelimits, bindings: { ...bindings, ...vars } };
}

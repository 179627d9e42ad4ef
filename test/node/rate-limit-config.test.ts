/**
 * The per-user rate limits are enforced by the [[ratelimits]] bindings and described by
 * TOOL_CALL_RATE_LIMIT / API_RATE_LIMIT in [vars] (the binding answers only allowed / refused, so
 * the wording and the retry hint come from the var). They must agree in every wrangler config.
 */
import { unstable_readConfig } from "wrangler";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseRateLimitSettings } from "../../workers/limits/rate-limit-settings";

const CONFIGS = ["wrangler.toml", "test/conformance/wrangler.toml"];
const DESCRIBED_BY = { TOOL_CALL_LIMITER: "TOOL_CALL_RATE_LIMIT", API_REQUEST_LIMITER: "API_RATE_LIMIT" } as const;

const rateLimitEntries = z.array(
  z.object({ name: z.string(), namespace_id: z.string(), simple: z.object({ limit: z.number(), period: z.number() }) }),
);

describe.each(CONFIGS)("%s", (path) => {
  const config = unstable_readConfig({ config: path });
  const ratelimits = rateLimitEntries.parse(config.ratelimits);

  it.each(Object.entries(DESCRIBED_BY))("%s is described by %s exactly", (binding, variable) => {
    const limiter = ratelimits.find((entry) => entry.name === binding);
    expect(limiter, `no [[ratelimits]] ${binding}`).toBeDefined();
    const described = config.vars[variable];
    expect(parseRateLimitSettings(typeof described === "string" ? described : undefined)).toEqual({
      limit: limiter!.simple.limit,
      periodSeconds: limiter!.simple.period,
    });
  });

  it("gives every rate limiter its own namespace", () => {
    const ids = ratelimits.map((entry) => entry.namespace_id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

/**
 * RateLimitService's own rules, on the real (tiny) bindings of this project: the retry hint is the
 * time left in the period-aligned window, the wording follows the describing var (or says less
 * when it is unreadable), one key per user, and a failing binding lets the request through.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AppError } from "../../workers/lib/errors";
import { parseRateLimitSettings } from "../../workers/limits/rate-limit-settings";
import { RateLimitService } from "../../workers/limits/rate-limits.service";
import { toolCallLimit } from "../helpers/rate-limits";

let nextUser = 9_000_000 + Math.floor(Math.random() * 1_000_000);
/** A user id no other test spends: the bindings count by `user:<id>` only. */
const freshUserId = () => nextUser++;

/** Spends one unit at a time until refused (at most two windows' worth). */
async function refusalOf(service: RateLimitService, userId: number): Promise<AppError> {
  for (let i = 0; i <= 2 * toolCallLimit().limit; i++) {
    const refusal = await service.spend("tool_calls", userId);
    if (refusal) return refusal;
  }
  throw new Error("never refused");
}

describe("RateLimitService", () => {
  it("hints the time left in the current window", async () => {
    const service = new RateLimitService(env, () => 1_700_000_043_250);
    const refusal = await refusalOf(service, freshUserId());
    expect(refusal.code).toBe("rate_limited");
    expect(refusal.status).toBe(429);
    expect(refusal.details).toEqual({ budget: "tool_calls", limit: toolCallLimit().limit, period_seconds: 10, retry_after_ms: 6_750 });
    expect(refusal.message).toBe(`Rate limit reached: at most ${toolCallLimit().limit} tool calls per 10 s for each user; retry after 7 s`);
  });

  it("hints a whole period at a window's first millisecond", async () => {
    const service = new RateLimitService(env, () => 1_700_000_040_000);
    expect((await refusalOf(service, freshUserId())).details?.["retry_after_ms"]).toBe(10_000);
  });

  it("with an unreadable describing var, still refuses, names the budget and hints the longest period", async () => {
    const service = new RateLimitService({ ...env, TOOL_CALL_RATE_LIMIT: "plenty" }, () => 1_700_000_043_250);
    const refusal = await refusalOf(service, freshUserId());
    expect(refusal.message).toBe("Rate limit reached: the per-user limit on tool calls; retry after 57 s");
    expect(refusal.details).toEqual({ budget: "tool_calls", retry_after_ms: 56_750 });
  });

  it("counts each user apart", async () => {
    const service = new RateLimitService(env);
    const spent = freshUserId();
    await refusalOf(service, spent);
    expect(await service.spend("tool_calls", freshUserId())).toBeUndefined();
  });

  it("stops at the first unit refused and returns that refusal", async () => {
    const service = new RateLimitService(env);
    const refusal = await service.spend("tool_calls", freshUserId(), 2 * toolCallLimit().limit + 1);
    expect(refusal?.code).toBe("rate_limited");
  });

  it("lets a request through when the binding itself fails", async () => {
    const failing: RateLimit = { limit: () => Promise.reject(new Error("counter unavailable")) };
    const service = new RateLimitService({ ...env, TOOL_CALL_LIMITER: failing, API_REQUEST_LIMITER: failing });
    expect(await service.spend("tool_calls", freshUserId(), 3)).toBeUndefined();
    expect(await service.spend("api_requests", freshUserId())).toBeUndefined();
  });
});

describe("parseRateLimitSettings", () => {
  it("reads <limit>/<10|60>s and nothing else", () => {
    expect(parseRateLimitSettings("60/10s")).toEqual({ limit: 60, periodSeconds: 10 });
    expect(parseRateLimitSettings("1/60s")).toEqual({ limit: 1, periodSeconds: 60 });
    for (const text of [
      undefined,
      "",
      "0/10s",
      "60/30s",
      "60/10",
      " 60/10s",
      "60/10s ",
      "6e1/10s",
      "-1/10s",
      "60 / 10s",
      "1000000000/10s",
    ]) {
      expect(parseRateLimitSettings(text), String(text)).toBeUndefined();
    }
  });
});

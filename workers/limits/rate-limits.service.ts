/**
 * Per-user rate limits: each user has a budget of tool calls (every MCP endpoint together) and one
 * of REST requests, counted by Cloudflare's Rate Limiting bindings (TOOL_CALL_LIMITER,
 * API_REQUEST_LIMITER) under a key made from the authenticated user's id alone — never from a
 * token, client id, address or anything else the client chooses, so a user's tokens and clients
 * share one budget and no one can spend another's.
 *
 * A refusal is an AppError `rate_limited` naming the limit, with `retry_after_ms`. The binding does
 * not say when a refused key is allowed again, so the hint is the time left in the current
 * period-aligned window, at most one period: exact under Miniflare, whose windows are aligned so;
 * an estimate on Cloudflare, which does not document its windows (decision 0029).
 */
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { parseRateLimitSettings } from "./rate-limit-settings";

export type Budget = "tool_calls" | "api_requests";

type LimiterEnv = Pick<Env, "TOOL_CALL_LIMITER" | "API_REQUEST_LIMITER" | "TOOL_CALL_RATE_LIMIT" | "API_RATE_LIMIT">;

interface BudgetSource {
  limiter: RateLimit;
  /** The var describing what the binding allows ("60/10s"): read only for a refusal's wording and hint. */
  settingsVar: string | undefined;
  /** What is counted, for the refusal's message. */
  noun: string;
}

/** The longest period a binding can have: the safe retry hint when the settings are unknown. */
const LONGEST_PERIOD_SECONDS = 60;

export class RateLimitService {
  private readonly budgets: Record<Budget, BudgetSource>;

  constructor(
    env: LimiterEnv,
    private readonly now: () => number = Date.now,
  ) {
    this.budgets = {
      tool_calls: { limiter: env.TOOL_CALL_LIMITER, settingsVar: env.TOOL_CALL_RATE_LIMIT, noun: "tool calls" },
      api_requests: { limiter: env.API_REQUEST_LIMITER, settingsVar: env.API_RATE_LIMIT, noun: "REST requests" },
    };
  }

  /**
   * Spends `count` units of `userId`'s `budget`, one binding call each, stopping at the first one
   * refused: returns that refusal (the caller must then run nothing), or undefined when all were
   * granted. Units granted before a refusal stay spent.
   *
   * If the binding itself fails, the request is let through and the failure logged: the limit
   * guards fairness, and an outage of the counter must not take every endpoint down with it.
   */
  async spend(budget: Budget, userId: number, count = 1): Promise<AppError | undefined> {
    const source = this.budgets[budget];
    const key = `user:${userId}`;
    for (let unit = 0; unit < count; unit++) {
      let allowed: boolean;
      try {
        allowed = (await source.limiter.limit({ key })).success;
      } catch (error) {
        log.error("rate limiter failed; request let through", { budget, user: userId, cause: String(error) });
        return undefined;
      }
      if (!allowed) return this.refusal(budget, source);
    }
    return undefined;
  }

  private refusal(budget: Budget, { settingsVar, noun }: BudgetSource): AppError {
    // Parsed here, not per request: every request builds this service, and only a refusal needs them.
    const settings = parseRateLimitSettings(settingsVar);
    const periodMs = (settings?.periodSeconds ?? LONGEST_PERIOD_SECONDS) * 1000;
    const retryAfterMs = periodMs - (this.now() % periodMs);
    const retryAfterSeconds = Math.ceil(retryAfterMs / 1000);
    const limit = settings
      ? `at most ${settings.limit} ${noun} per ${settings.periodSeconds} s for each user`
      : `the per-user limit on ${noun}`;
    return new AppError("rate_limited", `Rate limit reached: ${limit}; retry after ${retryAfterSeconds} s`, {
      details: {
        budget,
        ...(settings ? { limit: settings.limit, period_seconds: settings.periodSeconds } : {}),
        retry_after_ms: retryAfterMs,
      },
    });
  }
}

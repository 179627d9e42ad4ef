/**
 * The per-user rate limits as the tests see them: what the bindings allow (from the vars that
 * describe them: wrangler.toml's in the workers project, the tiny ones of vitest.config.ts in the
 * limits project), and a way to start a sequence that must be counted in one window.
 */
import { env } from "cloudflare:workers";
import { parseRateLimitSettings, type RateLimitSettings } from "../../workers/limits/rate-limit-settings";

export function toolCallLimit(): RateLimitSettings {
  const settings = parseRateLimitSettings(env.TOOL_CALL_RATE_LIMIT);
  if (!settings) throw new Error(`TOOL_CALL_RATE_LIMIT is not "<limit>/<10|60>s": ${env.TOOL_CALL_RATE_LIMIT}`);
  return settings;
}

export function apiRequestLimit(): RateLimitSettings {
  const settings = parseRateLimitSettings(env.API_RATE_LIMIT);
  if (!settings) throw new Error(`API_RATE_LIMIT is not "<limit>/<10|60>s": ${env.API_RATE_LIMIT}`);
  return settings;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The bindings count in windows aligned to the period (Miniflare: floor(now / period)); a count
 * starts again at each boundary. A test that must see its calls counted together calls this first:
 * when less than `needMs` of the current window is left, it waits for the next one to begin.
 * (A wait, not a timing assertion: the sequence that follows only needs to be shorter than `needMs`.)
 */
export async function startOfWindow(periodSeconds: number, needMs = 6_000): Promise<void> {
  const periodMs = periodSeconds * 1000;
  const left = periodMs - (Date.now() % periodMs);
  if (left < needMs) await sleep(left + 50);
}

/**
 * What a per-user rate limit allows, as written in wrangler.toml's [vars] ("60/10s"). Cloudflare's
 * Rate Limiting binding enforces the limit but answers only allowed / refused, so these vars repeat
 * the binding's `simple = { limit, period }` for the refusal's wording and its retry hint.
 */
import * as z from "zod";

export interface RateLimitSettings {
  /** Calls allowed per period, per user and Cloudflare location. */
  limit: number;
  /** The binding's period: 10 or 60 seconds, the only ones Cloudflare offers. */
  periodSeconds: 10 | 60;
}

const settingsText = z
  .string()
  .regex(/^[1-9]\d{0,8}\/(10|60)s$/)
  .transform((text): RateLimitSettings => {
    const [limit, period] = text.slice(0, -1).split("/");
    return { limit: Number(limit), periodSeconds: period === "10" ? 10 : 60 };
  });

/** The settings a var describes, or undefined when it is unset or not of the form "<limit>/<10|60>s". */
export function parseRateLimitSettings(text: string | undefined): RateLimitSettings | undefined {
  const parsed = settingsText.safeParse(text);
  return parsed.success ? parsed.data : undefined;
}

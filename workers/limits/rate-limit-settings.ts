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

/**
 * Each var's settings, parsed once per isolate: every request builds its own RateLimitService, and
 * a var's text does not change while the isolate lives. The values are frozen, so no request can
 * change what the next one reads; they hold configuration only, nothing about any user.
 */
const parsedTexts = new Map<string | undefined, Readonly<RateLimitSettings> | undefined>();
const MAX_PARSED_TEXTS = 16;

/** The settings a var describes, or undefined when it is unset or not of the form "<limit>/<10|60>s". */
export function parseRateLimitSettings(text: string | undefined): Readonly<RateLimitSettings> | undefined {
  if (parsedTexts.has(text)) return parsedTexts.get(text);
  const parsed = settingsText.safeParse(text);
  const settings = parsed.success ? Object.freeze(parsed.data) : undefined;
  // Bounded all the same: only tests and the bench ever give one isolate more than two texts.
  if (parsedTexts.size >= MAX_PARSED_TEXTS) parsedTexts.clear();
  parsedTexts.set(text, settings);
  return settings;
}

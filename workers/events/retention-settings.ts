/**
 * How long recorded events are kept: AUDIT_RETENTION_DAYS in wrangler.toml's [vars]. The cron
 * deletes older audit_log rows and older delivered outbox rows (retention.cron.ts), and a person's
 * activity shows nothing older (activity/), so what is listed is what is kept.
 */
import { AppError } from "../lib/errors";

export const DEFAULT_RETENTION_DAYS = 30;
/** Ten years: a longer retention is no retention, and 10 GB of D1 fills long before. */
const MAX_RETENTION_DAYS = 3650;
const DAY_MS = 86_400_000;

/**
 * The retention in days; "" or unset is the default. Anything else that is not a whole number of
 * days from 1 to 3650 is refused naming the setting: a typo must never turn into "delete everything".
 */
export function retentionDays(env: Partial<Pick<Env, "AUDIT_RETENTION_DAYS">>): number {
  const text = env.AUDIT_RETENTION_DAYS?.trim() ?? "";
  if (text === "") return DEFAULT_RETENTION_DAYS;
  const days = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (days >= 1 && days <= MAX_RETENTION_DAYS) return days;
  throw new AppError(
    "unavailable",
    `AUDIT_RETENTION_DAYS must be a whole number of days from 1 to ${MAX_RETENTION_DAYS} (it is "${text.slice(0, 40)}"); ` +
      "fix it in wrangler.toml [vars]",
  );
}

/** The oldest `occurred_at` / `delivered_at` still kept at `now` (ISO 8601, comparable as text). */
export function retentionCutoff(days: number, now = Date.now()): string {
  return new Date(now - days * DAY_MS).toISOString();
}

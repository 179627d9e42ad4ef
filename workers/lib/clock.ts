/** Time as the domain sees it: ISO 8601 UTC strings with milliseconds, as stored in D1. */
export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * The instants D1 stores as text: those whose ISO 8601 UTC form has a four-digit year. Inside
 * this range every such string has the same width, so comparing the text — in SQL (reminders due,
 * overdue counts, ORDER BY due_date) and in JavaScript alike — compares time. Outside it
 * `toISOString()` writes `+010000-…` or `-000001-…`, which sort before every ordinary date.
 */
export const EARLIEST_STORABLE = "0000-01-01T00:00:00.000Z";
export const LATEST_STORABLE = "9999-12-31T23:59:59.999Z";

/** Whether `iso` (a `toISOString()` result) is in the storable range. */
export function isStorableInstant(iso: string): boolean {
  return iso >= EARLIEST_STORABLE && iso <= LATEST_STORABLE && iso.length === LATEST_STORABLE.length;
}

export type RecurrencePattern = "daily" | "weekly" | "monthly";

/**
 * The next occurrence one period after `fromIso`. Monthly steps clamp to the month's last day
 * (31 Jan → 28/29 Feb) instead of overflowing into the month after.
 */
export function addPeriod(fromIso: string, pattern: RecurrencePattern): string {
  const date = new Date(fromIso);
  if (pattern === "daily") date.setUTCDate(date.getUTCDate() + 1);
  else if (pattern === "weekly") date.setUTCDate(date.getUTCDate() + 7);
  else {
    const day = date.getUTCDate();
    date.setUTCDate(1);
    date.setUTCMonth(date.getUTCMonth() + 1);
    const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
    date.setUTCDate(Math.min(day, lastDay));
  }
  return date.toISOString();
}

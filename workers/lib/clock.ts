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

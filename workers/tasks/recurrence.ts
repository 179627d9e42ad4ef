/** When a recurring task comes round again (complete_task creates the next occurrence). */
import type { RecurrencePattern } from "./tasks.schema";

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

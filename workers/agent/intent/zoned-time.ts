/**
 * Wall-clock time in an IANA zone, with Intl only (no date library): the router speaks in the
 * user's local calendar ("tomorrow 5pm" in Karachi) and hands tools UTC instants.
 */

/** A local calendar date; month is 1–12. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

export interface LocalDateTime extends CalendarDate {
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    // h23 so midnight is 0, never 24 (some engines print 24 with hour12: false).
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The zone to use: the given one when Intl knows it, else UTC (a bad zone must not break chat). */
export function resolveTimeZone(timeZone: string | undefined): string {
  if (timeZone === undefined || timeZone.trim() === "") return "UTC";
  try {
    formatter(timeZone);
    return timeZone;
  } catch {
    return "UTC";
  }
}

export function toLocal(instant: Date, timeZone: string): LocalDateTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? instant.getUTCFullYear(),
    month: parts.month ?? instant.getUTCMonth() + 1,
    day: parts.day ?? instant.getUTCDate(),
    hour: parts.hour ?? instant.getUTCHours(),
    minute: parts.minute ?? instant.getUTCMinutes(),
  };
}

/** Zone offset at `epochMs`, in ms (local wall clock minus UTC), at minute precision. */
function offsetAt(epochMs: number, timeZone: string): number {
  const local = toLocal(new Date(epochMs), timeZone);
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  return wall - Math.floor(epochMs / 60_000) * 60_000;
}

/**
 * The instant a wall-clock time names in `timeZone`. Two passes settle the offset across DST
 * changes; a time skipped by a spring-forward gap lands just after the gap.
 */
export function fromLocal(local: LocalDateTime, timeZone: string): Date {
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  let guess = wall - offsetAt(wall, timeZone);
  guess = wall - offsetAt(guess, timeZone);
  return new Date(guess);
}

export function addDays(date: CalendarDate, days: number): CalendarDate {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/** 0 = Sunday … 6 = Saturday, like Date#getDay. */
export function weekdayOf(date: CalendarDate): number {
  return new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
}

export function compareDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

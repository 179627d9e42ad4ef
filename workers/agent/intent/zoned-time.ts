/**
 * Wall-clock time in an IANA zone: the router speaks in the user's local calendar ("tomorrow 5pm"
 * in Karachi) and hands tools UTC instants. The zone arithmetic is @date-fns/tz's TZDate (Intl
 * underneath); only plain calendar-date steps are done here.
 */
import { TZDate } from "@date-fns/tz";

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

/** The zone to use: the given one when Intl knows it, else UTC (a bad zone must not break chat). */
export function resolveTimeZone(timeZone: string | undefined): string {
  if (timeZone === undefined || timeZone.trim() === "") return "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return timeZone;
  } catch {
    return "UTC";
  }
}

export function toLocal(instant: Date, timeZone: string): LocalDateTime {
  const local = new TZDate(instant.getTime(), timeZone);
  return {
    year: local.getFullYear(),
    month: local.getMonth() + 1,
    day: local.getDate(),
    hour: local.getHours(),
    minute: local.getMinutes(),
  };
}

/**
 * The instant a wall-clock time names in `timeZone`. A time skipped by a spring-forward gap moves
 * forward by the gap (02:30 on New York's spring-forward day is 03:30 EDT); a time that occurs
 * twice in a fall-back overlap is its first occurrence.
 */
export function fromLocal(local: LocalDateTime, timeZone: string): Date {
  return new Date(new TZDate(local.year, local.month - 1, local.day, local.hour, local.minute, timeZone).getTime());
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

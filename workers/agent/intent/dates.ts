/**
 * Finds one "when" in a message — "tomorrow at 5pm", "kal subah 9 baje", "next friday", "in 2 hours",
 * "2026-12-01", "dec 5" — and returns it as a UTC ISO instant plus the spans it used, so titles can
 * drop the date words. Computed from `now` in the user's zone; never throws.
 */
import { DAYPARTS, MONTHS, WEEKDAYS, oneOf } from "./lexicon";
import { spanOf } from "./text";
import type { Span } from "./types";
import { type CalendarDate, addDays, compareDates, fromLocal, toLocal, weekdayOf } from "./zoned-time";

export interface When {
  iso: string;
  spans: Span[];
}

export interface DateContext {
  now: Date;
  /** A zone already checked by resolveTimeZone. */
  timeZone: string;
}

/** A date without an hour means the start of the working day. */
export const DEFAULT_HOUR = 9;

// A preposition in front of a date belongs to it: "call mom at 5pm" → title "call mom".
const LEAD = "(?:\\b(?:due|deadline)\\s+)?(?:\\b(?:on|by|at|before|until|till|for|from)\\s+)?";
// Roman Urdu puts the postposition after: "jumma ko", "kal tak", "friday se pehle".
const TRAIL = "(?:\\s+(?:ko|tak|se\\s+pehle|se\\s+pahle|wale\\s+din))?";

const MONTH_WORD = oneOf(MONTHS.flat());
const WEEKDAY_WORD = oneOf(WEEKDAYS.flat());
const DAYPART_WORD = oneOf(DAYPARTS.flatMap((part) => part.words));

const re = (source: string): RegExp => new RegExp(source, "i");

const DURATION = re(
  `${LEAD}\\b(?:in|within|after)\\s+(an?|\\d{1,4})\\s*(minutes?|mins?|hours?|hrs?|days?|weeks?)\\b` +
    `|\\b(\\d{1,4})\\s*(ghante|ghanta|ghanton|minute|minutes|minat|mint|din|hafte|haftay)\\s+(?:mein|main|me|baad|bad)\\b`,
);
const ISO_DATE = re(`${LEAD}\\b(\\d{4})-(\\d{2})-(\\d{2})(?:[t ](\\d{2}):(\\d{2})(?::\\d{2}(?:\\.\\d+)?)?(z)?)?\\b${TRAIL}`);
const MONTH_DAY = re(`${LEAD}\\b(${MONTH_WORD})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?${TRAIL}`);
const DAY_MONTH = re(`${LEAD}\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH_WORD})\\b\\.?(?:,?\\s+(\\d{4})\\b)?${TRAIL}`);
const RELATIVE_DAY = re(
  `${LEAD}\\b(day after tomorrow|the day after tomorrow|parson|parso|parsoon|tomorrow|tmrw|tmr|kal|today|aaj|tonight|next week|agle hafte|agle haftay|agla hafta)\\b${TRAIL}`,
);
const WEEKDAY = re(`${LEAD}\\b(?:(next|this|coming|agle|agla|is|iss)\\s+)?(${WEEKDAY_WORD})\\b${TRAIL}`);
const CLOCK_AMPM = re(`${LEAD}(?:@\\s*)?\\b(\\d{1,2})(?:[:.](\\d{2}))?\\s*(a\\.?m\\.?|p\\.?m\\.?)(?![a-z])`);
const CLOCK_BAJE = re(`\\b(?:(?:saade|sade)\\s+)?(\\d{1,2})(?:[:.](\\d{2}))?\\s*(?:baje|bajay|bajey|bje|bjay)\\b${TRAIL}`);
const CLOCK_24H = re(`${LEAD}\\b(\\d{1,2}):(\\d{2})\\b(?!\\s*(?:baje|bajay|bje))`);
const CLOCK_AT = re(`\\b(?:at|@)\\s*(\\d{1,2})\\b(?!\\s*(?:[:.]\\d|%|st|nd|rd|th|days?|hours?|minutes?|tasks?))`);
const DAYPART = re(`(?:\\b(?:in the|this|at|is|aaj)\\s+)?\\b(${DAYPART_WORD})\\b(?:\\s+(?:ko|mein|me))?`);
const NOON = re(`\\b(?:at\\s+)?(noon|midday|midnight)\\b`);

const HOUR_MS = 3_600_000;

interface Clock {
  hour: number;
  minute: number;
  /** Whether am/pm or a 24-hour hour settled the half of the day. */
  settled: boolean;
  span: Span;
}

function numberWord(value: string): number {
  return /^an?$/i.test(value) ? 1 : Number(value);
}

/** "in 2 hours", "30 minute baad", "3 din mein": minutes and hours are an instant, days a date. */
function findDuration(text: string, ctx: DateContext): { instant?: Date; days?: number; span: Span } | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const amount = numberWord(m[1] ?? m[3] ?? "0");
  const unit = (m[2] ?? m[4] ?? "").toLowerCase();
  const span = spanOf(m);
  if (/^(min|minute|minat|mint)/.test(unit)) return { instant: new Date(ctx.now.getTime() + amount * 60_000), span };
  if (/^(hour|hr|ghant)/.test(unit)) return { instant: new Date(ctx.now.getTime() + amount * HOUR_MS), span };
  if (/^(week|hafte|haftay)/.test(unit)) return { days: amount * 7, span };
  return { days: amount, span };
}

function nextWeekday(today: CalendarDate, target: number): CalendarDate {
  // A bare or "next" weekday is the nearest one after today; today itself needs "today"/"aaj".
  const ahead = (target - weekdayOf(today) + 7) % 7 || 7;
  return addDays(today, ahead);
}

function monthIndex(word: string): number {
  const lower = word.toLowerCase();
  return MONTHS.findIndex((names) => names.some((name) => lower === name));
}

/** Month and day without a year: this year, or next year once the date has passed. */
function upcoming(today: CalendarDate, month: number, day: number, year: string | undefined): CalendarDate {
  const candidate = { year: year ? Number(year) : today.year, month, day };
  if (year || compareDates(candidate, today) >= 0) return candidate;
  return { ...candidate, year: today.year + 1 };
}

function validDate(date: CalendarDate): boolean {
  if (date.month < 1 || date.month > 12 || date.day < 1) return false;
  const check = new Date(Date.UTC(date.year, date.month - 1, date.day));
  return check.getUTCMonth() === date.month - 1 && check.getUTCDate() === date.day;
}

interface FoundDay {
  date: CalendarDate;
  span: Span;
  /** "tonight" implies a part of the day. */
  dayHour?: number;
  clock?: Clock;
  utc?: Date;
}

function findDay(text: string, today: CalendarDate): FoundDay | undefined {
  let m = ISO_DATE.exec(text);
  if (m) {
    const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
    if (validDate(date)) {
      if (m[4] !== undefined && m[6] !== undefined) {
        // "2026-12-01T17:00Z" already names an instant; the zone does not apply.
        return { date, span: spanOf(m), utc: new Date(Date.UTC(date.year, date.month - 1, date.day, Number(m[4]), Number(m[5]))) };
      }
      const clock: Clock | undefined =
        m[4] === undefined ? undefined : { hour: Number(m[4]), minute: Number(m[5]), settled: true, span: spanOf(m) };
      return { date, span: spanOf(m), ...(clock ? { clock } : {}) };
    }
  }
  m = MONTH_DAY.exec(text);
  if (m) {
    const date = upcoming(today, monthIndex(m[1] ?? "") + 1, Number(m[2]), m[3]);
    if (validDate(date)) return { date, span: spanOf(m) };
  }
  m = DAY_MONTH.exec(text);
  if (m) {
    const date = upcoming(today, monthIndex(m[2] ?? "") + 1, Number(m[1]), m[3]);
    if (validDate(date)) return { date, span: spanOf(m) };
  }
  m = RELATIVE_DAY.exec(text);
  if (m) {
    const word = (m[1] ?? "").toLowerCase();
    const span = spanOf(m);
    if (/after|pars/.test(word)) return { date: addDays(today, 2), span };
    if (/^(tomorrow|tmrw|tmr|kal)$/.test(word)) return { date: addDays(today, 1), span };
    if (/week|hafte|haftay|hafta/.test(word)) return { date: addDays(today, 7), span };
    if (word === "tonight") return { date: today, span, dayHour: 21 };
    return { date: today, span };
  }
  m = WEEKDAY.exec(text);
  if (m) {
    const word = (m[2] ?? "").toLowerCase();
    const target = WEEKDAYS.findIndex((names) => names.some((name) => new RegExp(`^${name}$`).test(word)));
    if (target >= 0) return { date: nextWeekday(today, target), span: spanOf(m) };
  }
  return undefined;
}

/** Reads an hour with no am/pm: the part of the day decides, else 1–7 o'clock means afternoon. */
function settleHour(hour: number, pm: boolean | undefined): number {
  if (hour >= 13 || hour === 0) return hour;
  if (pm === true) return hour === 12 ? 12 : hour + 12;
  if (pm === false) return hour === 12 ? 0 : hour;
  // Nobody schedules a task at 3 am without saying so; "5 baje" is 5 pm.
  return hour >= 1 && hour <= 7 ? hour + 12 : hour;
}

function findClock(text: string): Clock | undefined {
  let m = CLOCK_AMPM.exec(text);
  if (m) {
    const pm = /^p/i.test(m[3] ?? "");
    const hour = Number(m[1]) % 12;
    return { hour: pm ? hour + 12 : hour, minute: Number(m[2] ?? 0), settled: true, span: spanOf(m) };
  }
  m = CLOCK_BAJE.exec(text);
  if (m) {
    const half = /^(saade|sade)/i.test(m[0]) ? 30 : 0;
    return { hour: Number(m[1]), minute: Number(m[2] ?? half), settled: false, span: spanOf(m) };
  }
  m = CLOCK_24H.exec(text);
  if (m) {
    const hour = Number(m[1]);
    return { hour, minute: Number(m[2]), settled: hour >= 13 || (m[1] ?? "").startsWith("0"), span: spanOf(m) };
  }
  m = CLOCK_AT.exec(text);
  if (m) return { hour: Number(m[1]), minute: 0, settled: false, span: spanOf(m) };
  m = NOON.exec(text);
  if (m) return { hour: /midnight/i.test(m[1] ?? "") ? 0 : 12, minute: 0, settled: true, span: spanOf(m) };
  return undefined;
}

function findDaypart(text: string): { pm: boolean; defaultHour: number; span: Span } | undefined {
  const m = DAYPART.exec(text);
  if (!m) return undefined;
  const word = (m[1] ?? "").toLowerCase();
  const part = DAYPARTS.find((p) => p.words.some((w) => w === word));
  return part ? { pm: part.pm, defaultHour: part.defaultHour, span: spanOf(m) } : undefined;
}

export function parseWhen(text: string, ctx: DateContext): When | undefined {
  const duration = findDuration(text, ctx);
  if (duration?.instant) return { iso: duration.instant.toISOString(), spans: [duration.span] };

  const local = toLocal(ctx.now, ctx.timeZone);
  const today: CalendarDate = { year: local.year, month: local.month, day: local.day };
  const day: FoundDay | undefined =
    duration?.days !== undefined ? { date: addDays(today, duration.days), span: duration.span } : findDay(text, today);
  if (day?.utc && !Number.isNaN(day.utc.getTime())) return { iso: day.utc.toISOString(), spans: [day.span] };
  const clock = day?.clock ?? findClock(text);
  const daypart = findDaypart(text);
  if (!day && !clock && !daypart) return undefined;

  const spans = [day?.span, clock?.span, daypart?.span].filter((s): s is Span => s !== undefined);
  let hour = daypart?.defaultHour ?? day?.dayHour ?? DEFAULT_HOUR;
  let minute = 0;
  if (clock) {
    hour = clock.settled ? clock.hour : settleHour(clock.hour, daypart?.pm);
    minute = clock.minute;
  }
  if (hour > 23 || minute > 59) return undefined;

  let date = day?.date ?? today;
  let instant = fromLocal({ ...date, hour, minute }, ctx.timeZone);
  // A time alone ("at 5pm") that has already passed today means tomorrow.
  if (!day && instant.getTime() <= ctx.now.getTime()) {
    date = addDays(today, 1);
    instant = fromLocal({ ...date, hour, minute }, ctx.timeZone);
  }
  return { iso: instant.toISOString(), spans };
}

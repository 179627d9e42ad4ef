/**
 * Which task a message points at: "task 3", "#3", "number 3", "3 number wala task", "third task".
 * Ids shown by list_tasks are positive integers; 0 or absurd values are no reference at all.
 */
import type { Span } from "./types";

export interface TaskRef {
  id: number;
  span: Span;
  /** False for a bare number ("complete 3"), which only verbs that need a task may use. */
  explicit: boolean;
}

const WORD_NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  ek: 1,
  teen: 3,
  char: 4,
  chaar: 4,
  paanch: 5,
  panch: 5,
  chay: 6,
  chhe: 6,
  saat: 7,
  aath: 8,
  nau: 9,
  das: 10,
};
const WORD = "(one|two|three|four|five|six|seven|eight|nine|ten)";
const ORDINAL = "(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)";
const URDU = "(ek|teen|chaa?r|paa?nch|chay|chhe|saat|aath|nau|das)";
const NUMBER_WORD = "(?:number|numbr|nambar|nmbr|no\\.?|num)";
const LINKER = "(?:\\s+(?:wala|wali|wale|ka|ki|ke|vala|wla))?";

const PATTERNS: readonly RegExp[] = [
  new RegExp(`\\b(?:task|item|todo|kaam)\\s*(?:${NUMBER_WORD}\\s*)?#?\\s*(\\d{1,15})(?![\\w:.\\-/])`, "gi"),
  /(?:^|[^\w#])#\s?(\d{1,15})\b/gi,
  new RegExp(`\\b(\\d{1,15})\\s*${NUMBER_WORD}${LINKER}(?:\\s+(?:task|kaam|item))?\\b`, "gi"),
  new RegExp(`\\b${NUMBER_WORD}\\s*#?(\\d{1,15})\\b`, "gi"),
  /\b(\d{1,15})(?:st|nd|rd|th)\s+(?:task|item|one)\b/gi,
  new RegExp(`\\b(?:task|item)\\s+${WORD}\\b`, "gi"),
  new RegExp(`\\b(?:the\\s+)?${ORDINAL}\\s+(?:task|item|one)\\b`, "gi"),
  new RegExp(`\\b${URDU}\\s+${NUMBER_WORD}${LINKER}(?:\\s+(?:task|kaam))?\\b`, "gi"),
];

const BARE = /(?:^|[^\w#:.\-/])(\d{1,15})(?![\w:.\-/%])/g;

function toId(token: string | undefined): number | undefined {
  if (token === undefined) return undefined;
  const value = /^\d+$/.test(token) ? Number(token) : WORD_NUMBERS[token.toLowerCase()];
  return value !== undefined && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** The first explicit reference; else the first bare number outside `exclude` (the date's spans). */
export function findTaskRef(text: string, exclude: readonly Span[] = []): TaskRef | undefined {
  const outside = (span: Span): boolean => !exclude.some((s) => span.start < s.end && s.start < span.end);
  for (const pattern of PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const id = toId(m[1]);
      const span = { start: m.index, end: m.index + m[0].length };
      if (id !== undefined && outside(span)) return { id, span, explicit: true };
    }
  }
  for (const m of text.matchAll(BARE)) {
    const digits = m[1] ?? "";
    const start = m.index + m[0].length - digits.length;
    const span = { start, end: start + digits.length };
    if (!outside(span)) continue;
    const id = toId(digits);
    if (id !== undefined) return { id, span, explicit: false };
  }
  return undefined;
}

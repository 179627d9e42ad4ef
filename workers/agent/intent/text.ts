/** Text helpers shared by the extractors. All offsets refer to the normalised message. */
import type { Span } from "./types";

/** Longer messages are cut: nobody dictates a task in more, and it bounds regex work. */
export const MAX_MESSAGE_LENGTH = 2000;
/** Task titles are 1–200 characters (tasks.schema.ts). */
export const MAX_TITLE_LENGTH = 200;

/** Curly quotes → straight, whitespace runs → one space; length-changing steps happen only here. */
export function normalize(message: string): string {
  return message
    .slice(0, MAX_MESSAGE_LENGTH * 2)
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_MESSAGE_LENGTH);
}

export function spanOf(match: RegExpExecArray): Span {
  return { start: match.index, end: match.index + match[0].length };
}

/** Blanks each span with spaces: offsets of everything else stay valid, and words never fuse. */
export function removeSpans(text: string, spans: readonly Span[]): string {
  let out = text;
  for (const { start, end } of spans) out = out.slice(0, start) + " ".repeat(Math.max(0, end - start)) + out.slice(end);
  return out;
}

export function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Removes every match of `pattern` (which must be global). */
export function strip(text: string, pattern: RegExp): string {
  return text.replace(pattern, " ");
}

/** Collapses spaces and trims punctuation a removed phrase leaves dangling at either end. */
export function tidy(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .replace(/\s+([,.;:!?])/g, "$1")
    .replace(/^[\s,.;:!?\-–—"']+|[\s,.;:!?\-–—"']+$/g, "")
    .trim();
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max).trimEnd();
}

/**
 * One pass of extraction over a message: date, task reference, priority, recurrence and tags,
 * each with the spans it used. Intent modules decide from these facts and never re-parse.
 */
import { type Priority, type Recurrence, findPriority, findRecurrence, findTags } from "./attributes";
import { type DateContext, type When, parseWhen } from "./dates";
import { FILLER, RECURRENCE, STATUS_WORDS, VERBS, oneOf } from "./lexicon";
import { type TaskRef, findTaskRef } from "./numbers";
import { removeSpans, tidy } from "./text";
import type { Span } from "./types";

export type VerbFamily = keyof typeof VERBS;

export interface Message {
  /** The normalised message; every span points into it. */
  text: string;
  when?: When;
  ref?: TaskRef;
  priority?: { level: Priority; span: Span };
  recurrence?: { pattern: Recurrence; span: Span };
  tags?: { tags: string[]; spans: Span[] };
}

const words = (list: readonly string[]): RegExp => new RegExp(`(?<![\\w'])${oneOf(list)}(?![\\w'])`, "i");
const FAMILY = Object.fromEntries(Object.entries(VERBS).map(([family, list]) => [family, words(list)])) as Record<VerbFamily, RegExp>;

export function has(message: Message, family: VerbFamily): boolean {
  return FAMILY[family].test(message.text);
}

export function matches(message: Message, list: readonly string[]): boolean {
  return words(list).test(message.text);
}

export function parseMessage(text: string, ctx: DateContext): Message {
  const message: Message = { text };
  const when = parseWhen(text, ctx);
  if (when) message.when = when;
  const ref = findTaskRef(text, when?.spans ?? []);
  if (ref) message.ref = ref;
  // Later finders see the message without the task number and date, so "tag task 2 with x" yields only "x".
  const rest = removeSpans(text, [...(when?.spans ?? []), ...(ref ? [ref.span] : [])]);
  const priority = findPriority(rest);
  if (priority) message.priority = priority;
  // On the full text: "every monday" needs the weekday the date parser claimed.
  const recurrence = findRecurrence(text);
  if (recurrence) message.recurrence = recurrence;
  const tags = findTags(rest);
  if (tags) message.tags = tags;
  return message;
}

/** Every span an extractor claimed. */
export function claimedSpans(message: Message): Span[] {
  return [
    ...(message.when?.spans ?? []),
    ...(message.ref ? [message.ref.span] : []),
    ...(message.priority ? [message.priority.span] : []),
    ...(message.recurrence ? [message.recurrence.span] : []),
    ...(message.tags?.spans ?? []),
  ];
}

const NON_CONTENT = new RegExp(
  `(?<![\\w'])${oneOf([
    ...Object.values(VERBS).flat(),
    ...Object.values(STATUS_WORDS).flat(),
    ...Object.values(RECURRENCE).flat(),
    ...FILLER,
  ])}(?![\\w'])`,
  "gi",
);

/** The user's content words: the message minus everything the router understood and filler. */
export function residual(message: Message): string {
  const rest = removeSpans(message.text, claimedSpans(message));
  return tidy(rest.replace(NON_CONTENT, " ").replace(/[^\p{L}\p{N}'\-\s]/gu, " "));
}

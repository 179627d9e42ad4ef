/** Task attributes a message can carry besides a date: priority, recurrence and tags. */
import type { PRIORITIES, RECURRENCE_PATTERNS } from "../../tasks/tasks.schema";
import { PRIORITY_LEVELS, PRIORITY_ONLY_NEAR_WORD, RECURRENCE, WEEKDAYS, oneOf } from "./lexicon";
import { spanOf } from "./text";
import type { Span } from "./types";

export type Priority = (typeof PRIORITIES)[number];
export type Recurrence = (typeof RECURRENCE_PATTERNS)[number];

const PRIORITY_WORD = "(?:priority|priorty|prio)";
const LEVEL = oneOf(Object.values(PRIORITY_LEVELS).flat());
const NEAR_ONLY = oneOf(Object.values(PRIORITY_ONLY_NEAR_WORD).flat());

// The surrounding "to", "as", "with … priority" belong to the priority, not to a title.
const NEAR_PRIORITY = new RegExp(
  `(?:\\b(?:with|to|as|at)\\s+)?(?:\\b(?:a|an)\\s+)?\\b(${LEVEL}|${NEAR_ONLY})\\s*-?\\s*${PRIORITY_WORD}\\b` +
    `|\\b${PRIORITY_WORD}\\s*(?:to|=|:|is|as|ko|should be)?\\s*(?:\\b(?:a|an)\\s+)?\\b(${LEVEL}|${NEAR_ONLY})\\b`,
  "i",
);
const BARE_LEVEL = new RegExp(`(?:\\b(?:to|as|is)\\s+)?\\b(${LEVEL})\\b`, "i");

const LEVEL_OF = new Map<string, Priority>([
  ...Object.entries(PRIORITY_LEVELS).flatMap(([level, words]) => words.map((w) => [w, level as Priority] as const)),
  ...Object.entries(PRIORITY_ONLY_NEAR_WORD).flatMap(([level, words]) => words.map((w) => [w, level as Priority] as const)),
]);

export function findPriority(text: string): { level: Priority; span: Span } | undefined {
  const m = NEAR_PRIORITY.exec(text) ?? BARE_LEVEL.exec(text);
  const level = LEVEL_OF.get((m?.[1] ?? m?.[2] ?? "").toLowerCase());
  return m && level ? { level, span: spanOf(m) } : undefined;
}

const RECURRENCE_PATTERNS_RE: readonly { pattern: Recurrence; re: RegExp }[] = [
  // "every monday" / "har peer" repeats weekly; the weekday itself stays for the date parser.
  { pattern: "weekly", re: new RegExp(`\\b(?:every|each|har)\\s+(?=${oneOf(WEEKDAYS.flat())}\\b)`, "i") },
  ...(Object.keys(RECURRENCE) as Recurrence[]).map((pattern) => ({
    pattern,
    re: new RegExp(`\\b${oneOf(RECURRENCE[pattern])}\\b(?:\\s+(?:ke|ki|ka|wale|wali))?`, "i"),
  })),
];

export function findRecurrence(text: string): { pattern: Recurrence; span: Span } | undefined {
  for (const { pattern, re } of RECURRENCE_PATTERNS_RE) {
    const m = re.exec(text);
    if (m) return { pattern, span: spanOf(m) };
  }
  return undefined;
}

// "tag task 2 with work, home", "tagged work", "tags: a, b", "task 2 pe work aur home tag lagao", "#work".
const TAG_AFTER = /\b(?:tag(?:s|ged)?|label(?:s|led)?)\b(?:\s+(?:it|them|this))?\s*(?:with|as|:|=)?\s*(.+)$/i;
const TAG_BEFORE_URDU =
  /(?:^|\s)(?:pe|par|per|ko|mein|me|pr)\s+(.+?)\s+(?:ka\s+|ke\s+|ki\s+|wala\s+)?(?:tags?|labels?)\s+(?:laga\w*|lga\w*|daal\w*|dal\w*|add\w*|kar\w*)/i;
const HASHTAG = /(?:^|\s)#([a-z][\w-]{0,49})/gi;

/** Splits "work, home and errands" into tags; drops the task reference words left in the list. */
function splitTags(list: string): string[] {
  return list
    .split(/\s*(?:,|;|&|\/|\band\b|\baur\b|\bor\b)\s*/i)
    .map((tag) =>
      tag
        .replace(/^#/, "")
        .replace(/\b(?:please|pls|karo|kar do|lagao|laga do)\b/gi, "")
        .replace(/[.!?]+$/, "")
        .trim(),
    )
    .filter((tag) => tag.length > 0 && tag.length <= 50 && !/^(?:task|to|on|for)$/i.test(tag));
}

export function findTags(text: string): { tags: string[]; spans: Span[] } | undefined {
  const urdu = TAG_BEFORE_URDU.exec(text);
  if (urdu?.[1]) return { tags: splitTags(urdu[1]), spans: [spanOf(urdu)] };
  const after = TAG_AFTER.exec(text);
  if (after?.[1]) {
    // The task number is already blanked out, leaving "urgent to" from "add tags urgent to task 4".
    const list = after[1].replace(/\s+(?:to|on|for|ko|pe|par|per)\s*$/i, "");
    const tags = splitTags(list);
    if (tags.length > 0) return { tags, spans: [spanOf(after)] };
  }
  const hashtags = [...text.matchAll(HASHTAG)];
  const tags = hashtags.map((m) => m[1] ?? "").filter((t) => t.length > 0);
  return tags.length > 0 ? { tags, spans: hashtags.map((m) => ({ start: m.index, end: m.index + m[0].length })) } : undefined;
}

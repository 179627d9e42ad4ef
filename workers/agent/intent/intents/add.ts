/** add_task: "add a task to call mom tomorrow at 5pm", "naya task: report banana", "har roz paani peena". */
import { ADD_CLOSERS, ADD_OPENERS, MUST_DO, oneOf } from "../lexicon";
import { type Message, claimedSpans } from "../message";
import { MAX_TITLE_LENGTH, clip, removeSpans, tidy } from "../text";
import type { Proposal, Span } from "../types";

// A leading "hi,"/"ok" is allowed; the opener must end on a word boundary (or its own colon).
const OPENER = new RegExp(
  `^(?:(?:hi|hey|hello|ok|okay|salam|acha|achha)[,!.]?\\s+)?(?:${ADD_OPENERS.join("|")})(?:(?<=:)|(?![\\w']))\\s*:?`,
  "i",
);
/** "add tags …", "add high priority to …" belong to add_tags and set_priority. */
const NOT_AN_OPENER = /^\s*(?:add|set|put)\s+(?:a\s+|the\s+)?(?:tags?|labels?|priority|(?:high|low|medium|urgent)\s+priority)\b/i;
const CLOSER = new RegExp(`(?:\\s+${oneOf(ADD_CLOSERS)})+\\s*[.!]*\\s*$`, "i");
const MUST_DO_RE = new RegExp(MUST_DO, "i");
const GREETING = /^(?:hi|hey|hello|salam|salaam|assalam o alaikum|aoa|ok|okay|acha|achha)\b[,!.]?\s*/i;
/** Nouns left at the start once the opener is gone: "task: x", "a task called x". */
const LEADING_NOUN =
  /^\s*(?:(?:a|an|the|new|naya|nayi)\s+)*(?:task|todo|to-do|item|kaam)\s*(?::|-|to|for|called|named|titled|ke|ki|k)?\s+/i;

export function findOpener(text: string): Span | undefined {
  if (NOT_AN_OPENER.test(text)) return undefined;
  const m = OPENER.exec(text);
  return m ? { start: 0, end: m[0].length } : undefined;
}

export function soundsLikeTodo(text: string): boolean {
  return MUST_DO_RE.test(text);
}

/** The user's words minus command words, date phrases and attributes. */
export function titleOf(message: Message, opener: Span | undefined): string {
  // The task number stays: in a new task's title, "#3" or "3 clients" are the user's words.
  const claimed = claimedSpans(message).filter((span) => span !== message.ref?.span);
  let rest = removeSpans(message.text, [...claimed, ...(opener ? [opener] : [])]);
  rest = tidy(rest).replace(GREETING, "").replace(LEADING_NOUN, "");
  rest = rest.replace(CLOSER, "");
  return clip(tidy(rest.replace(/\s+(?:at|on|by|to|for|ko|tak)\s*$/i, "")), MAX_TITLE_LENGTH);
}

export function proposeAdd(message: Message, opener: Span | undefined): Proposal {
  const title = titleOf(message, opener);
  if (title.length === 0) return { kind: "ask", text: 'What should the task say? For example: "add a task to call mom tomorrow at 5pm".' };
  const args: Record<string, unknown> = { title };
  if (message.when) args.due_date = message.when.iso;
  if (message.priority) args.priority = message.priority.level;
  if (message.tags && message.tags.tags.length > 0) args.tags = message.tags.tags;
  if (message.recurrence) args.recurrence_pattern = message.recurrence.pattern;
  const due = message.when ? `, due ${message.when.iso}` : "";
  const repeat = message.recurrence ? `, repeating ${message.recurrence.pattern}` : "";
  return { kind: "call", call: { name: "add_task", arguments: args }, hint: `Adding the task "${title}"${due}${repeat}.` };
}

/** Read-only intents: search_tasks, analytics_summary, get_recurring_tasks and list_tasks with filters. */
import { STATUS_WORDS } from "../lexicon";
import { type Message, has, matches, residual } from "../message";
import type { Proposal } from "../types";

const ABOUT = /\b(?:about|containing|mentioning|related to|regarding|matching|with the word|wale|wali|wala)\b/i;
const SORTS = [
  { sort_by: "due_date", re: /\b(?:by|sorted by|order by)\s+(?:due\s*date|deadline|date)\b|\b(?:soonest|due|deadline)\b/i },
  { sort_by: "priority", re: /\b(?:by|sorted by|order by)\s+priority\b|\bmost important first\b/i },
  { sort_by: "title", re: /\b(?:by|sorted by|order by)\s+(?:title|name)\b|\balphabetical(?:ly)?\b/i },
  { sort_by: "created", re: /\b(?:newest|latest|recent(?:ly added)?)\b/i },
] as const;

export function proposeSearch(message: Message): Proposal | undefined {
  if (!has(message, "search") && !(ABOUT.test(message.text) && /\b(?:tasks?|kaam|todos?)\b/i.test(message.text))) return undefined;
  const query = residual(message);
  if (query.length === 0) return { kind: "ask", text: 'What should I search for? For example: "find tasks about report".' };
  const args: Record<string, unknown> = { query: query.slice(0, 200) };
  if (message.priority) args.priority = message.priority.level;
  if (message.tags) args.tags = message.tags.tags.join(",");
  const hint = `Searching your tasks for "${query}".`;
  // list_tasks filters by the same text, for an agent without search_tasks.
  const fallbackArgs: Record<string, unknown> = { search: args.query, ...(message.priority ? { priority: message.priority.level } : {}) };
  return {
    kind: "call",
    call: { name: "search_tasks", arguments: args },
    hint,
    fallback: { call: { name: "list_tasks", arguments: fallbackArgs }, hint },
  };
}

export function proposeAnalytics(message: Message): Proposal | undefined {
  if (!has(message, "analytics")) return undefined;
  return { kind: "call", call: { name: "analytics_summary", arguments: {} }, hint: "Summarising your tasks." };
}

/** "show recurring tasks", "daily tasks", "roz ke tasks": a recurrence with nothing else to do. */
export function proposeRecurring(message: Message): Proposal | undefined {
  if (!has(message, "recurring") && !message.recurrence) return undefined;
  if (residual(message).length > 0 || message.when) return undefined;
  const args: Record<string, unknown> = message.recurrence ? { pattern: message.recurrence.pattern } : {};
  const which = message.recurrence ? `${message.recurrence.pattern} ` : "";
  return { kind: "call", call: { name: "get_recurring_tasks", arguments: args }, hint: `Listing your ${which}recurring tasks.` };
}

const LIST_NOUN = /\b(?:tasks?|todos?|to-dos?|kaam|items|list)\b/i;

export function proposeList(message: Message): Proposal | undefined {
  const pending = matches(message, STATUS_WORDS.pending);
  const completed = !pending && matches(message, STATUS_WORDS.completed);
  const asked = has(message, "list") || LIST_NOUN.test(message.text) || pending;
  if (!asked) return undefined;
  const args: Record<string, unknown> = {};
  if (pending) args.status = "pending";
  if (completed) args.status = "completed";
  if (message.priority) args.priority = message.priority.level;
  if (message.tags) args.tags = message.tags.tags.join(",");
  const sort = SORTS.find((s) => s.re.test(message.text));
  if (sort) args.sort_by = sort.sort_by;
  else if (message.when) args.sort_by = "due_date";
  if (message.when && args.status === undefined) args.status = "pending";
  const filters = [
    args.status,
    args.priority ? `${String(args.priority)} priority` : undefined,
    args.tags ? `tagged ${String(args.tags)}` : undefined,
  ]
    .filter(Boolean)
    .join(", ");
  return {
    kind: "call",
    call: { name: "list_tasks", arguments: args },
    hint: filters ? `Listing your tasks (${filters}).` : "Listing your tasks.",
  };
}

/** A priority word on its own ("urgent", "zaroori kaam") asks for those tasks. */
export function proposePriorityList(message: Message): Proposal | undefined {
  if (!message.priority || residual(message).length > 0) return undefined;
  const priority = message.priority.level;
  return {
    kind: "call",
    call: { name: "list_tasks", arguments: { status: "pending", priority } },
    hint: `Listing your pending ${priority} priority tasks.`,
  };
}

/**
 * The local default "model" of the chat agent: turns one user message into task tool calls, or
 * into a reply when there is nothing to call. Pure and offline; it never throws, because it is
 * the answer of last resort when no language model is configured.
 */
import { findOpener, proposeAdd, soundsLikeTodo } from "./intents/add";
import { capabilities, notUnderstood, smallTalkReply, toolMissing } from "./intents/conversation";
import { proposeAnalytics, proposeList, proposePriorityList, proposeRecurring, proposeSearch } from "./intents/queries";
import { TASK_ACTION_EXAMPLES, proposeTaskAction } from "./intents/task-actions";
import { type Message, has, parseMessage, residual } from "./message";
import { normalize } from "./text";
import type { Proposal, RouteOptions, RoutedIntent } from "./types";
import { resolveTimeZone } from "./zoned-time";

export type { RouteOptions, RoutedIntent, ToolCall } from "./types";

const ACTION_WITHOUT_TASK: readonly { family: "complete" | "delete" | "tag" | "rename" | "remind"; text: string }[] = [
  { family: "complete", text: 'Which task is done? Give its number, e.g. "complete task 3" or "task 3 ho gaya".' },
  { family: "delete", text: 'Which task should I delete? Give its number, e.g. "delete task 4" or "task 4 hata do".' },
  { family: "rename", text: 'Which task should I rename? e.g. "rename task 2 to Buy bread".' },
  {
    family: "remind",
    text: 'What should I remind you about? e.g. "remind me to buy milk tomorrow at 5pm" or "remind me about task 3 at 9am".',
  },
  { family: "tag", text: 'Which task should I tag? e.g. "tag task 2 with work, home".' },
];

/** Decides the intent. Order matters: a numbered task beats a new task, and a search beats a list. */
function propose(message: Message): Proposal | undefined {
  const opener = findOpener(message.text);
  if (message.ref && (message.ref.explicit || !opener)) {
    const action = proposeTaskAction(message);
    if (action) return action;
    if (message.ref.explicit && !opener) return { kind: "ask", text: TASK_ACTION_EXAMPLES(message.ref.id) };
  }
  if (opener) return proposeAdd(message, opener);
  const query = proposeSearch(message) ?? proposeAnalytics(message) ?? proposeRecurring(message);
  if (query) return query;
  // "har roz paani peena", "kal 5 baje ammi ko call karna hai": a to-do without an opening verb.
  if (soundsLikeTodo(message.text) || (message.recurrence && residual(message).length > 0)) return proposeAdd(message, undefined);
  const list = proposeList(message) ?? proposePriorityList(message);
  if (list) return list;
  const missing = ACTION_WITHOUT_TASK.find((a) => has(message, a.family));
  if (missing) return { kind: "ask", text: missing.text };
  // "dentist tomorrow at 5pm": a when plus words of its own is a task to add.
  if (message.when && residual(message).length > 0) return proposeAdd(message, undefined);
  return undefined;
}

function choose(proposal: Proposal, tools: readonly string[]): RoutedIntent {
  if (proposal.kind === "ask") return { kind: "reply", text: proposal.text };
  if (tools.includes(proposal.call.name)) return { kind: "tool_calls", calls: [proposal.call], reply_hint: proposal.hint };
  const fallback = proposal.fallback;
  if (fallback && tools.includes(fallback.call.name)) return { kind: "tool_calls", calls: [fallback.call], reply_hint: fallback.hint };
  return { kind: "reply", text: toolMissing(proposal.call.name, tools) };
}

export function route(message: string, options: RouteOptions): RoutedIntent {
  const tools = Array.isArray(options?.tools) ? options.tools : [];
  try {
    const text = normalize(typeof message === "string" ? message : "");
    if (!/[\p{L}\p{N}]/u.test(text)) return { kind: "reply", text: capabilities(tools) };
    const small = smallTalkReply(text, tools);
    if (small) return { kind: "reply", text: small };
    const now = options.now instanceof Date && !Number.isNaN(options.now.getTime()) ? options.now : new Date();
    const parsed = parseMessage(text, { now, timeZone: resolveTimeZone(options.timeZone) });
    const proposal = propose(parsed);
    return proposal ? choose(proposal, tools) : { kind: "reply", text: notUnderstood(tools) };
  } catch {
    // A parser bug must cost one answer, not the chat: fall back to help.
    return { kind: "reply", text: notUnderstood(tools) };
  }
}

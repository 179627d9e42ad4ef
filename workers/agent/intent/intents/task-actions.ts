/**
 * Intents about one existing task, named by number: complete, delete, update (title, description,
 * due date, recurrence), set_priority, add_tags and schedule_reminder.
 */
import { type Message, has, matches } from "../message";
import { MAX_TITLE_LENGTH, clip, tidy } from "../text";
import type { Proposal, ToolCall } from "../types";

const RENAME = [
  /\b(?:rename|retitle)\b.*?\b(?:to|as|into)\s+(.+)$/i,
  /\b(?:title|name|heading)\b.*?\b(?:to|as)\s+(.+)$/i,
  // "task 2 ka naam Buy bread karo / rakho / rakh do"
  /\bnaa?m\s+(?:badal\s+(?:ke|kar)\s+)?(.+?)\s+(?:karo|kar\s+do|kardo|rakho|rakh\s+do|rakhdo|rakh\s+den?|kar\s+den?)\s*[.!]*$/i,
];
const DESCRIBE = [
  /\b(?:description|details|notes?)\b.*?\b(?:to|as)\s+(.+)$/i,
  /\b(?:description|tafseel)\s+(.+?)\s+(?:karo|kar\s+do|likho|rakho)\s*[.!]*$/i,
];
const RETITLE_PLAIN = /\b(?:change|update|edit|modify)\b.*?\bto\s+(.+)$/i;
const CLEAR_DUE =
  /\b(?:remove|clear|delete|drop|no|without)\s+(?:the\s+)?(?:due\s*date|deadline|date)\b|\b(?:due\s*date|deadline|date)\s+(?:hata|khatam|remove)/i;
const STOP_REPEAT =
  /\b(?:stop|don'?t|do not|no longer|never)\s+(?:repeat|recurr?|recurring)\w*|\b(?:repeat|recurring)\w*\s+(?:band|khatam|off|stop)\b|\bone[- ]time\b/i;
const REOPEN = [
  "reopen",
  "re-open",
  "undo",
  "not done",
  "undone",
  "incomplete",
  "uncomplete",
  "mark as pending",
  "wapas kholo",
  "wapas khol do",
];
const DUE_WORDS = ["due", "due date", "deadline", "date", "tareekh", "tarikh", "tak", "by"];
const REMIND_ME_TO = /\bremind me to\b/i;

function captured(patterns: readonly RegExp[], text: string): string | undefined {
  for (const pattern of patterns) {
    const value = pattern.exec(text)?.[1];
    if (value !== undefined) {
      const cleaned = clip(tidy(value.replace(/^["'“]|["'”]$/g, "")), MAX_TITLE_LENGTH);
      if (cleaned.length > 0) return cleaned;
    }
  }
  return undefined;
}

const call = (name: string, args: Record<string, unknown>, hint: string, fallback?: { call: ToolCall; hint: string }): Proposal => ({
  kind: "call",
  call: { name, arguments: args },
  hint,
  ...(fallback ? { fallback } : {}),
});

/** Undefined when the message names a task but asks nothing of it that we recognise. */
export function proposeTaskAction(message: Message): Proposal | undefined {
  const ref = message.ref;
  if (!ref) return undefined;
  const task_id = ref.id;
  const text = message.text;

  const title = captured(RENAME, text);
  if (title) return call("update_task", { task_id, title }, `Renaming task ${task_id} to "${title}".`);
  const description = captured(DESCRIBE, text);
  if (description) return call("update_task", { task_id, description }, `Updating the description of task ${task_id}.`);

  // A bare number ("buy 2 eggs") only names a task next to a verb that needs one.
  const strong = ref.explicit;
  if (strong && has(message, "remind") && !REMIND_ME_TO.test(text)) {
    if (!message.when)
      return {
        kind: "ask",
        text: `When should I remind you about task ${task_id}? For example: "remind me about task ${task_id} tomorrow at 9am".`,
      };
    return call(
      "schedule_reminder",
      { task_id, reminder_time: message.when.iso },
      `Setting a reminder for task ${task_id} at ${message.when.iso}.`,
    );
  }
  if (has(message, "tag")) {
    const tags = message.tags?.tags ?? [];
    if (tags.length === 0)
      return { kind: "ask", text: `Which tags should task ${task_id} get? For example: "tag task ${task_id} with work, home".` };
    return call("add_tags", { task_id, tags }, `Adding the tags ${tags.join(", ")} to task ${task_id}.`);
  }
  if (CLEAR_DUE.test(text)) return call("update_task", { task_id, due_date: null }, `Removing the due date of task ${task_id}.`);
  if (STOP_REPEAT.test(text)) return call("update_task", { task_id, recurrence_pattern: null }, `Task ${task_id} will no longer repeat.`);
  if (has(message, "delete")) return call("delete_task", { task_id }, `Deleting task ${task_id}.`);
  if (matches(message, REOPEN)) return call("complete_task", { task_id }, `Reopening task ${task_id}.`);
  if (has(message, "complete")) return call("complete_task", { task_id }, `Marking task ${task_id} as done.`);

  if (message.priority) {
    const priority = message.priority.level;
    const hint = `Setting task ${task_id} to ${priority} priority.`;
    // update_task can carry the priority too, for an agent that lacks set_priority.
    return call("set_priority", { task_id, priority }, hint, { call: { name: "update_task", arguments: { task_id, priority } }, hint });
  }
  if (has(message, "priority")) return { kind: "ask", text: `Which priority for task ${task_id}: high, medium or low?` };

  if (!strong) return undefined;
  const changes: Record<string, unknown> = {};
  if (message.when && (has(message, "update") || matches(message, DUE_WORDS))) changes.due_date = message.when.iso;
  if (message.recurrence && (has(message, "update") || has(message, "recurring"))) changes.recurrence_pattern = message.recurrence.pattern;
  if (Object.keys(changes).length > 0) {
    const what = [
      changes.due_date ? `due ${String(changes.due_date)}` : "",
      changes.recurrence_pattern ? `repeating ${String(changes.recurrence_pattern)}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    return call("update_task", { task_id, ...changes }, `Updating task ${task_id}: ${what}.`);
  }
  const plain = message.when || message.priority ? undefined : captured([RETITLE_PLAIN], text);
  if (plain) return call("update_task", { task_id, title: plain }, `Renaming task ${task_id} to "${plain}".`);
  return undefined;
}

export const TASK_ACTION_EXAMPLES = (id: number): string =>
  `What should I do with task ${id}? I can mark it done, delete it, rename it, change its due date or priority, tag it or set a reminder — e.g. "complete task ${id}".`;

/** Replies that call no tool: greetings, thanks, help, and "I did not understand" — always with what works. */
import { VERBS, oneOf } from "../lexicon";

const EXAMPLES: readonly { tool: string; example: string }[] = [
  { tool: "add_task", example: 'add a task: "add a task to call mom tomorrow at 5pm" / "kal 5 baje ammi ko call karna hai"' },
  { tool: "list_tasks", example: 'list tasks: "show my tasks", "what\'s pending" / "mere tasks dikhao"' },
  { tool: "complete_task", example: 'complete: "mark task 3 as done" / "task 3 ho gaya"' },
  { tool: "delete_task", example: 'delete: "delete task 4" / "task 4 hata do"' },
  { tool: "update_task", example: 'update: "rename task 2 to Buy bread", "change task 2 due date to friday"' },
  { tool: "search_tasks", example: 'search: "find tasks about report" / "report wale tasks dhoondo"' },
  { tool: "set_priority", example: 'priority: "set task 5 to high priority" / "task 5 ki priority high karo"' },
  { tool: "add_tags", example: 'tags: "tag task 2 with work, home"' },
  { tool: "schedule_reminder", example: 'reminders: "remind me about task 3 tomorrow at 9am" / "task 3 ka reminder kal subah 9 baje"' },
  { tool: "get_recurring_tasks", example: 'recurring: "show recurring tasks", "every monday team meeting" / "har roz paani peena"' },
  { tool: "analytics_summary", example: 'progress: "how am I doing", "stats"' },
];

export function capabilities(tools: readonly string[]): string {
  const lines = EXAMPLES.filter((e) => tools.includes(e.tool)).map((e) => `- ${e.example}`);
  if (lines.length === 0) return "No task tools are available right now, so I can only chat.";
  return `I can help with your tasks, in English or Roman Urdu:\n${lines.join("\n")}`;
}

const SMALL_TALK_WORDS = oneOf([
  ...VERBS.greeting,
  ...VERBS.thanks,
  ...VERBS.help,
  "there",
  "me",
  "you",
  "please",
  "pls",
  "bot",
  "assistant",
  "jee",
  "ji",
  "bhai",
  "sir",
  "dear",
  "friend",
  "ok",
  "okay",
  "acha",
  "achha",
  "how are you",
  "kaise ho",
  "kya haal hai",
]);
const SMALL_TALK = new RegExp(`(?<![\\w'])${SMALL_TALK_WORDS}(?![\\w'])`, "i");
const SMALL_TALK_ALL = new RegExp(SMALL_TALK.source, "gi");
const THANKS = new RegExp(`(?<![\\w'])${oneOf(VERBS.thanks)}(?![\\w'])`, "i");
const HELP = new RegExp(`(?<![\\w'])${oneOf(VERBS.help)}(?![\\w'])`, "i");

/** A message made only of greetings, thanks or a request for help. */
export function smallTalkReply(text: string, tools: readonly string[]): string | undefined {
  const rest = text.replace(SMALL_TALK_ALL, " ").replace(/[^\p{L}\p{N}]+/gu, "");
  if (rest.length > 0 || !SMALL_TALK.test(text)) return undefined;
  if (THANKS.test(text)) return `You're welcome! ${capabilities(tools)}`;
  if (HELP.test(text)) return capabilities(tools);
  return `Hi! ${capabilities(tools)}`;
}

export function notUnderstood(tools: readonly string[]): string {
  return `Sorry, I didn't understand that. ${capabilities(tools)}`;
}

export function toolMissing(tool: string, tools: readonly string[]): string {
  return `I understood that, but the ${tool} tool isn't available here. ${capabilities(tools)}`;
}

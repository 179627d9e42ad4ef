/**
 * The offline intent router: real phrasings in English and Roman Urdu → the exact task tool and
 * arguments, checked against the tools' own input schemas; replies for everything else.
 * `now` is fixed: Saturday 2026-11-21 10:00 UTC.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { route } from "../../../workers/agent/intent/route";
import {
  addTagsInput,
  addTaskInput,
  analyticsInput,
  listTasksInput,
  recurringTasksInput,
  scheduleReminderInput,
  searchTasksInput,
  setPriorityInput,
  taskIdInput,
  updateTaskInput,
} from "../../../workers/tasks/tasks.schema";

const NOW = new Date("2026-11-21T10:00:00Z");
const INPUTS: Record<string, z.ZodType> = {
  add_task: addTaskInput,
  list_tasks: listTasksInput,
  complete_task: taskIdInput,
  delete_task: taskIdInput,
  update_task: updateTaskInput,
  search_tasks: searchTasksInput,
  set_priority: setPriorityInput,
  add_tags: addTagsInput,
  schedule_reminder: scheduleReminderInput,
  get_recurring_tasks: recurringTasksInput,
  analytics_summary: analyticsInput,
};
const TOOLS = Object.keys(INPUTS);

type Row = readonly [message: string, tool: string, args: Record<string, unknown>];

const CASES: readonly Row[] = [
  // add
  ["add a task to call mom tomorrow at 5pm", "add_task", { title: "call mom", due_date: "2026-11-22T17:00:00.000Z" }],
  ["remind me to buy milk", "add_task", { title: "buy milk" }],
  ["kal 5 baje ammi ko call karna hai", "add_task", { title: "ammi ko call karna", due_date: "2026-11-22T17:00:00.000Z" }],
  ["naya task: report banana", "add_task", { title: "report banana" }],
  ["add urgent task: fix the login bug", "add_task", { title: "fix the login bug", priority: "high" }],
  ["add task buy eggs tagged shopping, home", "add_task", { title: "buy eggs", tags: ["shopping", "home"] }],
  ["parson shaam 6 baje doctor ke paas jana hai", "add_task", { title: "doctor ke paas jana", due_date: "2026-11-23T18:00:00.000Z" }],
  ["submit report by dec 5", "add_task", { title: "submit report", due_date: "2026-12-05T09:00:00.000Z" }],
  ["pay rent on 2026-12-01", "add_task", { title: "pay rent", due_date: "2026-12-01T09:00:00.000Z" }],
  ["call bank in 2 hours", "add_task", { title: "call bank", due_date: "2026-11-21T12:00:00.000Z" }],
  ["jumma ko namaz ke baad khana lana hai", "add_task", { title: "namaz ke baad khana lana", due_date: "2026-11-27T09:00:00.000Z" }],
  ["next monday meeting with ali at 10:30am", "add_task", { title: "meeting with ali", due_date: "2026-11-23T10:30:00.000Z" }],
  ["remind me to call 3 clients tomorrow", "add_task", { title: "call 3 clients", due_date: "2026-11-22T09:00:00.000Z" }],
  ["todo: renew passport", "add_task", { title: "renew passport" }],
  ["I need to renew my passport next week", "add_task", { title: "renew my passport", due_date: "2026-11-28T09:00:00.000Z" }],
  ["aaj raat 10 baje movie dekhni hai", "add_task", { title: "movie dekhni", due_date: "2026-11-21T22:00:00.000Z" }],
  ["salam, kal dawai leni hai", "add_task", { title: "dawai leni", due_date: "2026-11-22T09:00:00.000Z" }],
  ["add task: review #3 PR", "add_task", { title: "review #3 PR" }],
  ["dopahar 2 baje lunch with sara", "add_task", { title: "lunch with sara", due_date: "2026-11-21T14:00:00.000Z" }],
  // add, recurring
  ["every monday team meeting", "add_task", { title: "team meeting", due_date: "2026-11-23T09:00:00.000Z", recurrence_pattern: "weekly" }],
  ["har roz paani peena", "add_task", { title: "paani peena", recurrence_pattern: "daily" }],
  ["add daily task water plants", "add_task", { title: "water plants", recurrence_pattern: "daily" }],
  ["har hafte ghar ki safai", "add_task", { title: "ghar ki safai", recurrence_pattern: "weekly" }],
  // list
  ["show my tasks", "list_tasks", {}],
  ["what's pending", "list_tasks", { status: "pending" }],
  ["mere tasks dikhao", "list_tasks", {}],
  ["completed tasks", "list_tasks", { status: "completed" }],
  ["hello, show my tasks", "list_tasks", {}],
  ["show high priority tasks", "list_tasks", { priority: "high" }],
  ["show tasks tagged work", "list_tasks", { tags: "work" }],
  ["pending tasks sorted by due date", "list_tasks", { status: "pending", sort_by: "due_date" }],
  ["what's due today", "list_tasks", { status: "pending", sort_by: "due_date" }],
  ["zaroori kaam dikhao", "list_tasks", { priority: "high" }],
  ["baqi kaam batao", "list_tasks", { status: "pending" }],
  // complete
  ["mark task 3 as done", "complete_task", { task_id: 3 }],
  ["complete #3", "complete_task", { task_id: 3 }],
  ["task 3 ho gaya", "complete_task", { task_id: 3 }],
  ["3 number wala task ho gaya", "complete_task", { task_id: 3 }],
  ["finished task 8", "complete_task", { task_id: 8 }],
  ["task no. 12 complete karo", "complete_task", { task_id: 12 }],
  ["mark the first task done", "complete_task", { task_id: 1 }],
  ["reopen task 3", "complete_task", { task_id: 3 }],
  // delete
  ["delete task 4", "delete_task", { task_id: 4 }],
  ["task 4 hata do", "delete_task", { task_id: 4 }],
  ["task#7 delete", "delete_task", { task_id: 7 }],
  ["delete the third task", "delete_task", { task_id: 3 }],
  ["remove number 9", "delete_task", { task_id: 9 }],
  // update
  ["rename task 2 to Buy bread", "update_task", { task_id: 2, title: "Buy bread" }],
  ["change task 2 due date to friday", "update_task", { task_id: 2, due_date: "2026-11-27T09:00:00.000Z" }],
  ["task 2 ka naam Buy bread karo", "update_task", { task_id: 2, title: "Buy bread" }],
  ["move task 6 to tomorrow", "update_task", { task_id: 6, due_date: "2026-11-22T09:00:00.000Z" }],
  ["task 6 ki date peer karo", "update_task", { task_id: 6, due_date: "2026-11-23T09:00:00.000Z" }],
  ["task 3 ko kal tak karo", "update_task", { task_id: 3, due_date: "2026-11-22T09:00:00.000Z" }],
  ["change task 2 description to bring the blue folder", "update_task", { task_id: 2, description: "bring the blue folder" }],
  ["stop repeating task 2", "update_task", { task_id: 2, recurrence_pattern: null }],
  ["remove due date from task 2", "update_task", { task_id: 2, due_date: null }],
  ["make task 2 repeat weekly", "update_task", { task_id: 2, recurrence_pattern: "weekly" }],
  // search
  ["find tasks about report", "search_tasks", { query: "report" }],
  ["report wale tasks dhoondo", "search_tasks", { query: "report" }],
  ["search milk", "search_tasks", { query: "milk" }],
  ["look for tasks with invoice", "search_tasks", { query: "invoice" }],
  // priority
  ["set task 5 to high priority", "set_priority", { task_id: 5, priority: "high" }],
  ["task 5 ki priority high karo", "set_priority", { task_id: 5, priority: "high" }],
  ["task 5 urgent hai", "set_priority", { task_id: 5, priority: "high" }],
  ["make task 5 low priority", "set_priority", { task_id: 5, priority: "low" }],
  ["priority of task 7 to medium", "set_priority", { task_id: 7, priority: "medium" }],
  ["urgent", "list_tasks", { status: "pending", priority: "high" }],
  // tags
  ["tag task 2 with work, home", "add_tags", { task_id: 2, tags: ["work", "home"] }],
  ["task 2 pe work aur home tag lagao", "add_tags", { task_id: 2, tags: ["work", "home"] }],
  ["add tags urgent to task 4", "add_tags", { task_id: 4, tags: ["urgent"] }],
  // remind
  ["remind me about task 3 tomorrow at 9am", "schedule_reminder", { task_id: 3, reminder_time: "2026-11-22T09:00:00.000Z" }],
  ["task 3 ka reminder kal subah 9 baje", "schedule_reminder", { task_id: 3, reminder_time: "2026-11-22T09:00:00.000Z" }],
  ["add a reminder for task 3 at 5pm", "schedule_reminder", { task_id: 3, reminder_time: "2026-11-21T17:00:00.000Z" }],
  ["task 3 ka reminder 30 minute baad", "schedule_reminder", { task_id: 3, reminder_time: "2026-11-21T10:30:00.000Z" }],
  // recurring
  ["show recurring tasks", "get_recurring_tasks", {}],
  ["daily tasks", "get_recurring_tasks", { pattern: "daily" }],
  ["weekly tasks", "get_recurring_tasks", { pattern: "weekly" }],
  ["roz ke tasks dikhao", "get_recurring_tasks", { pattern: "daily" }],
  // analytics
  ["how am I doing", "analytics_summary", {}],
  ["stats", "analytics_summary", {}],
  ["summary", "analytics_summary", {}],
  ["kitne tasks complete hue", "analytics_summary", {}],
  ["meri progress batao", "analytics_summary", {}],
];

function onlyCall(message: string, options: { timeZone?: string; tools?: readonly string[] } = {}) {
  const result = route(message, { now: NOW, tools: options.tools ?? TOOLS, ...(options.timeZone ? { timeZone: options.timeZone } : {}) });
  if (result.kind !== "tool_calls") throw new Error(`expected a tool call for "${message}", got reply: ${result.text}`);
  expect(result.calls).toHaveLength(1);
  expect(result.reply_hint.length).toBeGreaterThan(0);
  const [call] = result.calls;
  if (!call) throw new Error("no call");
  return call;
}

describe("route: phrasings → tool calls", () => {
  it("covers every task tool with at least 60 phrasings", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CASES.map(([, tool]) => tool))).toEqual(new Set(TOOLS));
  });

  it.each(CASES)("%s → %s", (message, tool, args) => {
    const call = onlyCall(message);
    expect(call).toEqual({ name: tool, arguments: args });
    // What the router produces is accepted by the tool's own input schema.
    expect(INPUTS[tool]?.safeParse(call.arguments).success).toBe(true);
  });
});

describe("route: time zones", () => {
  it("reads 'kal 5 baje' in Karachi time (UTC+5)", () => {
    expect(onlyCall("kal 5 baje ammi ko call karna hai", { timeZone: "Asia/Karachi" }).arguments).toEqual({
      title: "ammi ko call karna",
      due_date: "2026-11-22T12:00:00.000Z",
    });
  });

  it("reads 'tomorrow at 5pm' in New York time (UTC-5), where it is still early on the 21st", () => {
    expect(onlyCall("add a task to call mom tomorrow at 5pm", { timeZone: "America/New_York" }).arguments).toEqual({
      title: "call mom",
      due_date: "2026-11-22T22:00:00.000Z",
    });
  });

  it("treats an unknown zone as UTC instead of failing", () => {
    expect(onlyCall("remind me about task 3 tomorrow at 9am", { timeZone: "Mars/Olympus" }).arguments).toEqual({
      task_id: 3,
      reminder_time: "2026-11-22T09:00:00.000Z",
    });
  });
});

describe("route: available tools", () => {
  it("falls back to update_task when set_priority is missing", () => {
    const call = onlyCall("set task 5 to high priority", { tools: ["update_task"] });
    expect(call).toEqual({ name: "update_task", arguments: { task_id: 5, priority: "high" } });
  });

  it("falls back to list_tasks' search filter when search_tasks is missing", () => {
    expect(onlyCall("find tasks about report", { tools: ["list_tasks"] })).toEqual({ name: "list_tasks", arguments: { search: "report" } });
  });

  it("replies instead of calling a tool that is not offered", () => {
    const result = route("delete task 4", { now: NOW, tools: ["list_tasks"] });
    expect(result.kind).toBe("reply");
    if (result.kind === "reply") {
      expect(result.text).toContain("delete_task");
      expect(result.text).toContain("show my tasks");
      expect(result.text).not.toContain("hata do");
    }
  });
});

describe("route: replies", () => {
  const reply = (message: string): string => {
    const result = route(message, { now: NOW, tools: TOOLS });
    if (result.kind !== "reply") throw new Error(`expected a reply for "${message}", got ${JSON.stringify(result.calls)}`);
    return result.text;
  };

  it.each(["hi", "hello", "assalam o alaikum", "good morning", "help", "what can you do", "thanks", "shukriya"])(
    "answers %j with what it can do",
    (message) => {
      const text = reply(message);
      expect(text).toContain("add a task to call mom tomorrow at 5pm");
      expect(text).toContain("task 3 ho gaya");
    },
  );

  it.each([
    ["done", "Which task is done?"],
    ["delete", "Which task should I delete?"],
    ["remind me", "What should I remind you about?"],
    ["task 9", "What should I do with task 9?"],
    ["find", "What should I search for?"],
    ["add task", "What should the task say?"],
    ["remind me about task 3", "When should I remind you about task 3?"],
    ["tag task 2", "Which tags should task 2 get?"],
  ])("asks for what is missing in %j", (message, question) => {
    expect(reply(message)).toContain(question);
  });
});

describe("route: robustness", () => {
  const inputs = [
    "",
    "   ",
    "🙂🙂🙂",
    "12345",
    "0",
    "task 0",
    "task 99999999999999999999",
    "?!?!",
    "x".repeat(10_000),
    "add task " + "long words ".repeat(1_000),
    "kal kal kal parson at at at 5 baje baje",
    "a\u0000b\u202ec",
    "İstanbul trip tomorrow",
    "2026-02-30 pay rent",
    "at 99pm call",
    "((((((((((",
  ];

  it.each(inputs.map((input) => [input.slice(0, 40), input]))("never throws on %j", (_label, input) => {
    const result = route(input, { now: NOW, tools: TOOLS });
    expect(["reply", "tool_calls"]).toContain(result.kind);
    if (result.kind === "reply") expect(result.text.length).toBeGreaterThan(0);
    else for (const call of result.calls) expect(INPUTS[call.name]?.safeParse(call.arguments).success).toBe(true);
  });

  it("answers the empty, emoji-only and number-only messages with help", () => {
    for (const input of ["", "🙂🙂", "12345"]) {
      const result = route(input, { now: NOW, tools: TOOLS });
      expect(result.kind).toBe("reply");
      if (result.kind === "reply") expect(result.text).toContain("show my tasks");
    }
  });

  it("keeps titles within the 200-character limit", () => {
    const call = onlyCall(`add task ${"write ".repeat(100)}`);
    expect(String(call.arguments.title).length).toBeLessThanOrEqual(200);
  });

  it("survives an invalid now and missing tools", () => {
    const result = route("show my tasks", { now: new Date(Number.NaN), tools: [] });
    expect(result.kind).toBe("reply");
  });
});

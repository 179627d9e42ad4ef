/** The 12 task tools (show_task_board opens the task board app). Each is a thin adapter: validated args in, TaskService call, text + structured result out. */
import { opensApp } from "../mcp/app-resource";
import { defineTool, READ_ONLY } from "../mcp/tool";
import { TASK_BOARD_APP } from "./task-board.resources";
import { formatAnalytics, formatTask, formatTaskList } from "./tasks.format";
import {
  addTagsInput,
  addTaskInput,
  analyticsInput,
  analyticsResult,
  completeResult,
  deleteResult,
  listTasksInput,
  recurringResult,
  recurringTasksInput,
  reminderResult,
  scheduleReminderInput,
  searchResult,
  searchTasksInput,
  setPriorityInput,
  taskIdInput,
  taskPage,
  taskResult,
  updateTaskInput,
} from "./tasks.schema";

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const IDEMPOTENT_WRITE = { ...WRITE, idempotentHint: true };

export const taskTools = [
  defineTool({
    name: "add_task",
    title: "Add task",
    description:
      "Create a task for the current user. Give a short title; optionally a description (defaults to the title), a due_date in ISO 8601, a priority (high, medium, low, none), tags, and a recurrence_pattern (daily, weekly, monthly) for repeating tasks. Returns the new task with its id.",
    input: addTaskInput,
    output: taskResult,
    annotations: WRITE,
    scopes: ["tasks:write"],
    run: async (args, { user, services }) => {
      const task = await services.tasks.add(user.id, args);
      return { data: { task }, text: `Created ${formatTask(task)}` };
    },
  }),
  defineTool({
    name: "list_tasks",
    title: "List tasks",
    description:
      "List the current user's tasks. Filter by status (all, pending, completed), priority, tags (comma-separated; tasks must carry all of them) or search text in title and description; sort_by created, due_date, priority or title. Returns up to `limit` tasks and a next_cursor to fetch the next page.",
    input: listTasksInput,
    output: taskPage,
    annotations: READ_ONLY,
    scopes: ["tasks:read"],
    run: async (args, { user, services }) => {
      const page = await services.tasks.list(user.id, args);
      const more = page.next_cursor ? `\nMore tasks: pass cursor "${page.next_cursor}".` : "";
      return { data: page, text: formatTaskList(page.tasks, "No tasks match.") + more };
    },
  }),
  defineTool({
    name: "show_task_board",
    title: "Show task board",
    description:
      "Show the user's tasks on an interactive board where they can filter, add, complete and reprioritise them themselves. Takes the same filters as list_tasks and returns the same page of tasks; hosts without apps show it as text.",
    input: listTasksInput,
    output: taskPage,
    annotations: READ_ONLY,
    scopes: ["tasks:read"],
    meta: opensApp(TASK_BOARD_APP),
    run: async (args, { user, services }) => {
      const page = await services.tasks.list(user.id, args);
      return { data: page, text: formatTaskList(page.tasks, "No tasks match.") };
    },
  }),
  defineTool({
    name: "complete_task",
    title: "Complete task",
    description:
      "Toggle a task between completed and pending by task_id. Completing a recurring task also creates its next occurrence, due one period later; the result names it.",
    input: taskIdInput,
    output: completeResult,
    annotations: WRITE,
    scopes: ["tasks:write"],
    run: async (args, { user, services }) => {
      const result = await services.tasks.toggleComplete(user.id, args.task_id);
      const verb = result.task.status === "completed" ? "Completed" : "Reopened";
      const next = result.next_occurrence ? `\nNext occurrence created: ${formatTask(result.next_occurrence)}` : "";
      return { data: result, text: `${verb} ${formatTask(result.task)}${next}` };
    },
  }),
  defineTool({
    name: "delete_task",
    title: "Delete task",
    description: "Permanently delete a task (and its reminders) by task_id. Returns the deleted task.",
    input: taskIdInput,
    output: deleteResult,
    annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
    scopes: ["tasks:write"],
    run: async (args, { user, services }) => {
      const task = await services.tasks.delete(user.id, args.task_id);
      return { data: { deleted: true as const, task }, text: `Deleted ${formatTask(task)}` };
    },
  }),
  defineTool({
    name: "update_task",
    title: "Update task",
    description:
      "Change any of a task's title, description, priority, due_date, tags (replaces them) or recurrence_pattern. Pass null for due_date or recurrence_pattern to clear it. Fields you omit stay as they are.",
    input: updateTaskInput,
    output: taskResult,
    annotations: IDEMPOTENT_WRITE,
    scopes: ["tasks:write"],
    run: async ({ task_id, ...fields }, { user, services }) => {
      const task = await services.tasks.update(user.id, task_id, fields);
      return { data: { task }, text: `Updated ${formatTask(task)}` };
    },
  }),
  defineTool({
    name: "search_tasks",
    title: "Search tasks",
    description:
      "Full-text search over task titles and descriptions, best matches first (word prefixes match: 'meet' finds 'meeting'). Optionally filter by priority and tags (comma-separated).",
    input: searchTasksInput,
    output: searchResult,
    annotations: READ_ONLY,
    scopes: ["tasks:read"],
    run: async (args, { user, services }) => {
      const result = await services.tasks.search(user.id, args);
      return { data: result, text: formatTaskList(result.tasks, `No tasks match "${args.query}".`) };
    },
  }),
  defineTool({
    name: "set_priority",
    title: "Set priority",
    description: "Set a task's priority to high, medium, low or none.",
    input: setPriorityInput,
    output: taskResult,
    annotations: IDEMPOTENT_WRITE,
    scopes: ["tasks:write"],
    run: async (args, { user, services }) => {
      const task = await services.tasks.setPriority(user.id, args.task_id, args.priority);
      return { data: { task }, text: `Priority set: ${formatTask(task)}` };
    },
  }),
  defineTool({
    name: "add_tags",
    title: "Add tags",
    description: "Add tags to a task. They are merged with its existing tags; duplicates and empty tags are dropped.",
    input: addTagsInput,
    output: taskResult,
    annotations: IDEMPOTENT_WRITE,
    scopes: ["tasks:write"],
    run: async (args, { user, services }) => {
      const task = await services.tasks.addTags(user.id, args.task_id, args.tags);
      return { data: { task }, text: `Tags now: ${task.tags.join(", ")} on ${formatTask(task)}` };
    },
  }),
  defineTool({
    name: "schedule_reminder",
    title: "Schedule reminder",
    description:
      "Schedule a reminder for a task at reminder_time (ISO 8601 date-time with zone, in the future). When it falls due a REMINDER_DUE event is emitted for notification services.",
    input: scheduleReminderInput,
    output: reminderResult,
    annotations: WRITE,
    scopes: ["tasks:write"],
    run: async (args, { user, services }) => {
      const result = await services.tasks.scheduleReminder(user.id, args.task_id, args.reminder_time);
      return {
        data: result,
        text: `Reminder #${result.reminder.id} set for ${result.reminder.reminder_time} on ${formatTask(result.task)}`,
      };
    },
  }),
  defineTool({
    name: "get_recurring_tasks",
    title: "Recurring tasks",
    description: "List the pending recurring tasks, optionally only those with one pattern (daily, weekly, monthly).",
    input: recurringTasksInput,
    output: recurringResult,
    annotations: READ_ONLY,
    scopes: ["tasks:read"],
    run: async (args, { user, services }) => {
      const result = await services.tasks.recurring(user.id, args.pattern);
      return { data: result, text: formatTaskList(result.tasks, "No recurring tasks.") };
    },
  }),
  defineTool({
    name: "analytics_summary",
    title: "Task analytics",
    description:
      "Summary of the user's tasks: total, completed, pending, completion rate (0–1), overdue count and a breakdown by priority.",
    input: analyticsInput,
    output: analyticsResult,
    annotations: READ_ONLY,
    scopes: ["tasks:read"],
    run: async (_args, { user, services }) => {
      const stats = await services.tasks.analytics(user.id);
      return { data: stats, text: formatAnalytics(stats) };
    },
  }),
];

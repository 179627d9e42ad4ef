/** REST API over the task service: the same schemas as the MCP tools, no second copy of the logic. */
import * as z from "zod";
import { defineRoute } from "../http/api-route";
import { urlNumber } from "../http/url-number";
import {
  addTaskInput,
  addTagsInput,
  analyticsResult,
  completeResult,
  deleteResult,
  fields,
  listTasksInput,
  recurringResult,
  recurringTasksInput,
  reminderResult,
  reminderSchema,
  scheduleReminderInput,
  searchResult,
  searchTasksInput,
  taskPage,
  taskResult,
  updateFields,
} from "./tasks.schema";

const TAG = "tasks";
const idParams = z.object({ task_id: urlNumber(fields.task_id) });
/** Query strings carry text: numbers are read strictly, everything else is validated as on MCP. */
const listQuery = listTasksInput.extend({ limit: urlNumber(fields.limit).default(50) });
const searchQuery = searchTasksInput.extend({ limit: urlNumber(fields.limit).default(20) });

export const taskRoutes = [
  defineRoute({
    method: "post",
    path: "/api/tasks",
    scopes: ["tasks:write"],
    summary: "Create a task",
    tag: TAG,
    body: addTaskInput,
    response: taskResult,
    status: 201,
    handle: async ({ body }, c) => ({ task: await c.var.services.tasks.add(c.var.user.id, body) }),
  }),
  defineRoute({
    method: "get",
    path: "/api/tasks",
    scopes: ["tasks:read"],
    summary: "List tasks with filters, sorting and paging",
    tag: TAG,
    query: listQuery,
    response: taskPage,
    handle: ({ query }, c) => c.var.services.tasks.list(c.var.user.id, query),
  }),
  defineRoute({
    method: "get",
    path: "/api/tasks/search",
    scopes: ["tasks:read"],
    summary: "Full-text search over titles and descriptions, ranked",
    tag: TAG,
    query: searchQuery,
    response: searchResult,
    handle: ({ query }, c) => c.var.services.tasks.search(c.var.user.id, query),
  }),
  defineRoute({
    method: "get",
    path: "/api/tasks/stats",
    scopes: ["tasks:read"],
    summary: "Totals, completion rate, priority breakdown and overdue count",
    tag: TAG,
    response: analyticsResult,
    handle: (_input, c) => c.var.services.tasks.analytics(c.var.user.id),
  }),
  defineRoute({
    method: "get",
    path: "/api/tasks/recurring",
    scopes: ["tasks:read"],
    summary: "Pending recurring tasks, optionally of one pattern",
    tag: TAG,
    query: recurringTasksInput,
    response: recurringResult,
    handle: ({ query }, c) => c.var.services.tasks.recurring(c.var.user.id, query.pattern),
  }),
  defineRoute({
    method: "get",
    path: "/api/tasks/{task_id}",
    scopes: ["tasks:read"],
    summary: "Get one task",
    tag: TAG,
    params: idParams,
    response: taskResult,
    handle: async ({ params }, c) => ({ task: await c.var.services.tasks.get(c.var.user.id, params.task_id) }),
  }),
  defineRoute({
    method: "patch",
    path: "/api/tasks/{task_id}",
    scopes: ["tasks:write"],
    summary: "Change any of title, description, priority, due_date, tags, recurrence_pattern",
    tag: TAG,
    params: idParams,
    body: updateFields,
    response: taskResult,
    handle: async ({ params, body }, c) => ({
      task: await c.var.services.tasks.update(c.var.user.id, params.task_id, body),
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/api/tasks/{task_id}",
    scopes: ["tasks:write"],
    summary: "Delete a task",
    tag: TAG,
    params: idParams,
    response: deleteResult,
    handle: async ({ params }, c) => ({
      deleted: true,
      task: await c.var.services.tasks.delete(c.var.user.id, params.task_id),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/api/tasks/{task_id}/complete",
    scopes: ["tasks:write"],
    summary: "Toggle completion; completing a recurring task creates its next occurrence",
    tag: TAG,
    params: idParams,
    response: completeResult,
    handle: ({ params }, c) => c.var.services.tasks.toggleComplete(c.var.user.id, params.task_id),
  }),
  defineRoute({
    method: "post",
    path: "/api/tasks/{task_id}/tags",
    scopes: ["tasks:write"],
    summary: "Add tags, merged with the task's existing ones",
    tag: TAG,
    params: idParams,
    body: addTagsInput.omit({ task_id: true }),
    response: taskResult,
    handle: async ({ params, body }, c) => ({
      task: await c.var.services.tasks.addTags(c.var.user.id, params.task_id, body.tags),
    }),
  }),
  defineRoute({
    method: "get",
    path: "/api/tasks/{task_id}/reminders",
    scopes: ["tasks:read"],
    summary: "The task's reminders",
    tag: TAG,
    params: idParams,
    response: z.object({ reminders: z.array(reminderSchema) }),
    handle: async ({ params }, c) => ({
      reminders: await c.var.services.tasks.reminders(c.var.user.id, params.task_id),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/api/tasks/{task_id}/reminders",
    scopes: ["tasks:write"],
    summary: "Schedule a reminder for the task",
    tag: TAG,
    params: idParams,
    body: scheduleReminderInput.omit({ task_id: true }),
    response: reminderResult,
    status: 201,
    handle: ({ params, body }, c) =>
      c.var.services.tasks.scheduleReminder(c.var.user.id, params.task_id, body.reminder_time),
  }),
];


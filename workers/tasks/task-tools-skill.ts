/**
 * The skill /mcp/tasks (and /mcp) serves on how to use the task tools, as the files of its folder
 * (path → content): Workers have no filesystem, so a skill's files are modules. Served with the
 * SDK's skills extension (mcp/own-skills.ts); keep it true to tasks.tools.ts.
 */
export const TASK_TOOLS_SKILL_FILES: Readonly<Record<string, string>> = {
  "using-task-tools/SKILL.md": `---
name: using-task-tools
description: How to manage the signed-in user's tasks with the mcp-edge task tools - finding a task's id, adding, updating, completing, tagging, reminding, recurring tasks and summaries - and the mistakes to avoid.
---

# Using the task tools

Every task belongs to the signed-in user; no tool takes a user id. Tools address one task by its
numeric \`task_id\`, which only \`list_tasks\`, \`search_tasks\`, \`add_task\` and the task resources
(\`task://{id}\`) give you. Never guess an id: find it first.

## Find a task
- Words the user remembers: \`search_tasks\` (full text over title and description, best first;
  word prefixes match, so "meet" finds "meeting"). Narrow with \`priority\` and \`tags\`.
- A filtered view: \`list_tasks\` with \`status\` (all, pending, completed), \`priority\`, \`tags\`
  (comma-separated; a task must carry all of them), \`search\`, and \`sort_by\` (created, due_date,
  priority, title). It is paged: pass \`next_cursor\` back as \`cursor\` until there is none.
- Recurring tasks: \`get_recurring_tasks\`, optionally one \`pattern\` (daily, weekly, monthly).

## Change tasks
- \`add_task\`: a short \`title\`; optional \`description\`, \`due_date\` (ISO 8601), \`priority\` (high,
  medium, low, none), \`tags\`, \`recurrence_pattern\`. It returns the new task and its id.
- \`update_task\`: only the fields you pass change. \`tags\` here replaces the tags; to add some
  without losing the others use \`add_tags\`. Pass \`null\` for \`due_date\` or \`recurrence_pattern\`
  to clear it.
- \`set_priority\`: just the priority.
- \`complete_task\` toggles: calling it on a completed task makes it pending again, so check the
  status first when unsure. Completing a recurring task creates the next occurrence, due one
  period later; the result names it.
- \`delete_task\` is permanent (its reminders go too). Prefer completing a task unless the user
  asked to delete it.
- \`schedule_reminder\`: \`reminder_time\` is an ISO 8601 date-time with a zone, in the future.

## Summaries
\`analytics_summary\` gives totals, completion rate, overdue count and a breakdown by priority; the
\`review_tasks\` prompt asks for a review of the tasks of one status and priority.

## Errors
A tool error says what was wrong ("not found", an invalid date, a limit and the setting that
changes it). "Not found" for an id you were given means it is not this user's task, or it was
deleted: list or search again rather than retrying the same id.
`,
};

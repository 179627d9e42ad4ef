/** Text a person can read, for the `content` block of tool results. */
import type { Analytics, Task } from "./tasks.schema";

export function formatTask(task: Task): string {
  const box = task.status === "completed" ? "[x]" : "[ ]";
  const details: string[] = [];
  if (task.priority !== "none") details.push(`${task.priority} priority`);
  if (task.due_date) details.push(`due ${task.due_date}${task.overdue ? " (overdue)" : ""}`);
  if (task.recurrence_pattern) details.push(`repeats ${task.recurrence_pattern}`);
  if (task.tags.length > 0) details.push(`tags: ${task.tags.join(", ")}`);
  return `#${task.id} ${box} ${task.title}${details.length > 0 ? ` — ${details.join("; ")}` : ""}`;
}

export function formatTaskList(tasks: readonly Task[], empty: string): string {
  return tasks.length === 0 ? empty : tasks.map(formatTask).join("\n");
}

export function formatAnalytics(stats: Analytics): string {
  const percent = Math.round(stats.completion_rate * 100);
  const { high, medium, low, none } = stats.by_priority;
  return [
    `${stats.total} tasks: ${stats.completed} completed, ${stats.pending} pending (${percent}% done).`,
    `Overdue: ${stats.overdue}.`,
    `By priority: high ${high}, medium ${medium}, low ${low}, none ${none}.`,
  ].join("\n");
}

/**
 * The tool results the peers return, shaped like mcp-edge's (structuredContent + one text block,
 * same text formatting), so every target sends responses of about the same size.
 */
import { formatTask, formatTaskList } from "../../workers/tasks/tasks.format";
import type { Task } from "../../workers/tasks/tasks.schema";
import { type TaskRow, toTask } from "./task-sql";

export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
}

function result(data: Record<string, unknown>, text: string): ToolResult {
  return { content: [{ type: "text", text }], structuredContent: data };
}

/** `rows` holds up to limit + 1 rows; the extra one only says that a next page exists (as in TaskService.list). */
export function listTasksResult(rows: readonly TaskRow[], limit: number): ToolResult {
  const now = new Date().toISOString();
  const tasks: Task[] = rows.slice(0, limit).map((row) => toTask(row, now));
  const nextCursor = rows.length > limit ? btoa(JSON.stringify({ o: limit })).replace(/=+$/, "") : null;
  const more = nextCursor ? `\nMore tasks: pass cursor "${nextCursor}".` : "";
  return result({ tasks, count: tasks.length, next_cursor: nextCursor }, formatTaskList(tasks, "No tasks match.") + more);
}

export function addTaskResult(row: TaskRow): ToolResult {
  const task = toTask(row, new Date().toISOString());
  return result({ task }, `Created ${formatTask(task)}`);
}

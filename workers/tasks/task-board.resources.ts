/** The task board, the tasks server's MCP App: opened by show_task_board, it works through the task tools. */
import type { BuiltInApp } from "../mcp/app-resource";

export const TASK_BOARD_APP: BuiltInApp = {
  uri: "ui://tasks/task-board.html",
  view: "task-board",
  title: "Task board",
  description: "Your tasks as a board: filter them, add one, complete one, change a priority.",
};

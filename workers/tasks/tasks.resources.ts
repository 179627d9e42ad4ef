/**
 * MCP features beyond tools for the tasks server: each task as a resource (`task://{id}`), a
 * review prompt whose enum arguments complete, and the task board app (`ui://tasks/task-board.html`). All of it reads through TaskService as the
 * authenticated user, so a foreign id is "not found" here too.
 */
import { completable, type McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import * as z from "zod";
import { AppError } from "../lib/errors";
import { registerBuiltInApp } from "../mcp/app-resource";
import type { ToolContext } from "../mcp/tool";
import { TASK_BOARD_APP } from "./task-board.resources";
import { formatTaskList } from "./tasks.format";
import { PRIORITIES, STATUS_FILTERS } from "./tasks.schema";

const RESOURCE_LIST_LIMIT = 100;

function matching<T extends string>(values: readonly T[], prefix: string | undefined): T[] {
  return values.filter((value) => value.startsWith(prefix ?? ""));
}

/** Built once: the prompt's arguments do not depend on the request. */
const reviewArgs = z.object({
  status: completable(z.enum(STATUS_FILTERS), (value) => matching(STATUS_FILTERS, value)).optional(),
  priority: completable(z.enum(PRIORITIES), (value) => matching(PRIORITIES, value)).optional(),
});

export function registerTaskResources(server: McpServer, { user, services }: ToolContext): void {
  registerBuiltInApp(server, TASK_BOARD_APP);
  server.registerResource(
    "task",
    new ResourceTemplate("task://{id}", {
      list: async () => {
        const page = await services.tasks.list(user.id, {
          status: "pending",
          sort_by: "due_date",
          limit: RESOURCE_LIST_LIMIT,
        });
        return {
          resources: page.tasks.map((task) => ({
            uri: `task://${task.id}`,
            name: task.title,
            description: task.description,
            mimeType: "application/json",
          })),
        };
      },
      complete: {
        id: async (prefix) => {
          const page = await services.tasks.list(user.id, { status: "all", sort_by: "created", limit: RESOURCE_LIST_LIMIT });
          return page.tasks.map((task) => String(task.id)).filter((id) => id.startsWith(prefix));
        },
      },
    }),
    { title: "Task", description: "One of your tasks as JSON, by id", mimeType: "application/json" },
    async (uri, variables) => {
      const id = Number(variables["id"]);
      if (!Number.isInteger(id) || id <= 0) throw AppError.invalid(`Not a task URI: ${uri.href} (expected task://<id>)`);
      const task = await services.tasks.get(user.id, id);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(task) }] };
    },
  );

  server.registerPrompt(
    "review_tasks",
    {
      title: "Review my tasks",
      description: "Summarise the user's tasks of a status and priority and suggest what to do next.",
      argsSchema: reviewArgs,
    },
    async ({ status, priority }) => {
      const page = await services.tasks.list(user.id, {
        status: status ?? "pending",
        priority,
        sort_by: "due_date",
        limit: 50,
      });
      const list = formatTaskList(page.tasks, "(no tasks)");
      return {
        messages: [
          {
            role: "user" as const,
            content: {
              type: "text" as const,
              text: `Here are my ${status ?? "pending"} tasks${priority ? ` of ${priority} priority` : ""}:\n${list}\n\nSummarise them, point out anything overdue, and suggest the three I should do next.`,
            },
          },
        ],
      };
    },
  );
}

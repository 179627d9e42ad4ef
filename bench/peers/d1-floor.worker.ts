/**
 * The d1-floor peer: the least a Worker must do for list_tasks and add_task — parse the JSON-RPC
 * request, run mcp-edge's D1 statements (one query; one insert + outbox batch), answer JSON. No MCP
 * library, no validation library, no auth lookup, no queue send. mcp-edge at 0.8× of this is the target.
 */
import {
  INSERT_OUTBOX_SQL,
  INSERT_TASK_SQL,
  insertOutboxParams,
  insertTaskParams,
  LIST_TASKS_SQL,
  newTaskFrom,
  type TaskRow,
} from "./task-sql";
import { addTaskResult, listTasksResult, type ToolResult } from "./task-results";

interface FloorEnv {
  DB: D1Database;
  /** The seeded user: the floor skips authentication and always acts as this user. */
  USER_ID: string;
}

interface RpcRequest {
  id?: string | number | null;
  method?: string;
  params?: { name?: string; arguments?: Record<string, unknown> };
}

function reply(id: RpcRequest["id"], body: { result: ToolResult } | { error: { code: number; message: string } }): Response {
  return Response.json({ jsonrpc: "2.0", id: id ?? null, ...body });
}

async function listTasks(db: D1Database, userId: number, args: Record<string, unknown>): Promise<ToolResult> {
  const limit = typeof args["limit"] === "number" ? args["limit"] : 50;
  const { results } = await db
    .prepare(LIST_TASKS_SQL)
    .bind(userId, limit + 1)
    .all<TaskRow>();
  return listTasksResult(results, limit);
}

async function addTask(db: D1Database, userId: number, args: Record<string, unknown>): Promise<ToolResult> {
  const occurredAt = new Date().toISOString();
  const [inserted] = await db.batch<TaskRow>([
    db.prepare(INSERT_TASK_SQL).bind(...insertTaskParams(userId, newTaskFrom(args), occurredAt)),
    db.prepare(INSERT_OUTBOX_SQL).bind(...insertOutboxParams(userId, crypto.randomUUID(), occurredAt)),
  ]);
  const row = inserted?.results[0];
  if (!row) throw new Error("insert returned no row");
  return addTaskResult(row);
}

export default {
  async fetch(request, env) {
    const message = (await request.json()) as RpcRequest;
    const userId = Number(env.USER_ID);
    const args = message.params?.arguments ?? {};
    if (message.method === "tools/call" && message.params?.name === "list_tasks") {
      return reply(message.id, { result: await listTasks(env.DB, userId, args) });
    }
    if (message.method === "tools/call" && message.params?.name === "add_task") {
      return reply(message.id, { result: await addTask(env.DB, userId, args) });
    }
    return reply(message.id, { error: { code: -32601, message: "the d1-floor peer serves list_tasks and add_task only" } });
  },
} satisfies ExportedHandler<FloorEnv>;

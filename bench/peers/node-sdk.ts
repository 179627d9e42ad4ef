/**
 * The node-sdk peer: the same task tools on the official MCP SDK v1 (McpServer +
 * StreamableHTTPServerTransport, stateless: sessionIdGenerator undefined, a fresh server and
 * transport per request, SDK defaults otherwise) on plain node:http, storage in node:sqlite.
 *
 * It registers all 11 of mcp-edge's tool declarations (same names, descriptions, zod input and
 * output schemas, annotations) so tools/list serialises the same catalogue; only list_tasks and
 * add_task are implemented, the others answer isError. Bearer tokens are verified like mcp-edge
 * does (SHA-256, then an in-memory cache).
 *
 * Run as a child process by the bench: `node --import tsx bench/peers/node-sdk.ts`, configured by
 * BENCH_* environment variables; prints one JSON line `{"port": n}` once listening, and exits when
 * its stdin closes (so it never outlives the bench).
 */
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { taskTools } from "../../workers/tasks/tasks.tools";
import { MCP_PATH } from "../lib/mcp";
import { seedStatements } from "../lib/seed";
import { openTaskStore, type TaskStore } from "./node-sdk.store";
import { newTaskFrom } from "./task-sql";
import { addTaskResult, listTasksResult, type ToolResult } from "./task-results";

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function notImplemented(name: string): ToolResult & { isError: true } {
  return { isError: true, content: [{ type: "text", text: `${name} is not implemented by the node-sdk peer` }], structuredContent: {} };
}

function run(store: TaskStore, userId: number, name: string, args: Record<string, unknown>): ToolResult {
  if (name === "list_tasks") {
    // The SDK has already applied the input schema, so limit carries its default (50) when omitted.
    const limit = typeof args["limit"] === "number" ? args["limit"] : 50;
    return listTasksResult(store.listTasks(userId, limit), limit);
  }
  if (name === "add_task") return addTaskResult(store.addTask(userId, newTaskFrom(args)));
  return notImplemented(name);
}

function buildServer(store: TaskStore, userId: number): McpServer {
  const server = new McpServer({ name: "node-sdk-peer", version: "0.1.0" }, { capabilities: { logging: {} } });
  for (const tool of taskTools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations },
      },
      (args: Record<string, unknown>) => run(store, userId, tool.name, args),
    );
  }
  return server;
}

function bearer(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

const store = openTaskStore(
  requiredEnv("BENCH_DB_PATH"),
  requiredEnv("BENCH_MIGRATIONS_DIR"),
  seedStatements(requiredEnv("BENCH_TOKEN_HASH"), Number(requiredEnv("BENCH_SEED_TASKS"))),
);

const http = createServer((req, res) => {
  void (async () => {
    if (req.method !== "POST" || req.url !== MCP_PATH) {
      res.writeHead(404).end();
      return;
    }
    const token = bearer(req.headers.authorization);
    const userId = token ? await store.authenticate(token) : undefined;
    if (userId === undefined) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"code":"unauthorized"}}');
      return;
    }
    const server = buildServer(store, userId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  })().catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: String(error) }));
  });
});

http.listen(0, "127.0.0.1", () => {
  const address = http.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});

// The bench holds our stdin open; when it goes away, so do we.
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
process.on("SIGTERM", () => process.exit(0));

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
 * With BENCH_PEER_SESSIONS=1 it keeps sessions instead (a session id from initialize, one server
 * and transport per session): the upstream of the gateway's sessionful row, which the gateway
 * calls through the source's Durable Object.
 *
 * Run as a child process by the bench: `node --import tsx bench/peers/node-sdk.ts`, configured by
 * BENCH_* environment variables; prints one JSON line `{"port": n}` once listening, and exits when
 * its stdin closes (so it never outlives the bench).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
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

const keepSessions = process.env["BENCH_PEER_SESSIONS"] === "1";
const sessions = new Map<string, { transport: StreamableHTTPServerTransport; userId: number }>();

async function serveStateless(req: IncomingMessage, res: ServerResponse, userId: number): Promise<void> {
  const server = buildServer(store, userId);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** A request with a known session id goes to its transport; one without opens a session (initialize). */
async function serveWithSessions(req: IncomingMessage, res: ServerResponse, userId: number): Promise<void> {
  const sessionId = req.headers["mcp-session-id"];
  if (typeof sessionId === "string") {
    const session = sessions.get(sessionId);
    if (!session || session.userId !== userId) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"code":"unknown_session"}}');
      return;
    }
    await session.transport.handleRequest(req, res);
    return;
  }
  const server = buildServer(store, userId);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, { transport, userId }),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    void server.close();
  };
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

const http = createServer((req, res) => {
  void (async () => {
    const path = req.url?.split("?")[0];
    if (path !== MCP_PATH || (req.method !== "POST" && !keepSessions)) {
      res.writeHead(404).end();
      return;
    }
    const token = bearer(req.headers.authorization);
    const userId = token ? await store.authenticate(token) : undefined;
    if (userId === undefined) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"code":"unauthorized"}}');
      return;
    }
    await (keepSessions ? serveWithSessions(req, res, userId) : serveStateless(req, res, userId));
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

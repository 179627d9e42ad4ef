/**
 * `mcp-edge bridge`: exposes a stdio MCP server as streamable HTTP (2025-06-18 / 2025-11-25
 * sessions) on /mcp behind a bearer token, forwarding JSON-RPC as it is (ids rewritten, see
 * process.ts). Workers cannot spawn processes, so the gateway registers the bridge as a remote
 * source (transport `stdio`).
 *
 * - Per-session (default): `initialize` spawns a process for the new session; DELETE, the idle
 *   timeout or the bridge's exit kill it.
 * - Singleton (--singleton): one shared process; the first `initialize` starts it, later sessions
 *   get its cached initialize result.
 * - A session dies with its process: the call in flight answers a BRIDGE_PROCESS_EXITED JSON-RPC
 *   error, the next request on that session gets 404, and the client's re-initialisation starts a
 *   fresh process (the SDK and the gateway re-initialise on 404 by themselves).
 * - `Mcp-Bridge-Env` (workers/gateway/upstream.types.ts#BRIDGE_ENV_HEADER) sets declared variables for the process a session spawns.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BRIDGE_PROCESS_EXITED } from "../../workers/gateway/upstream.types";
import { BRIDGE_ENV_HEADER } from "../../workers/gateway/upstream.types";
import { BridgeEnvError, envKey, gatewayEnv } from "./env";
import type { Logger } from "./log";
import { type JsonRpcMessage, ProcessExitedError, StdioProcess } from "./process";

export interface BridgeOptions {
  host: string;
  port: number;
  token: string;
  command: string;
  args: readonly string[];
  /** Working directory of the process (the manifest's directory, or the bridge's cwd). */
  cwd: string;
  /** The environment every process starts with (the bridge's own plus manifest defaults). */
  baseEnv: Record<string, string>;
  /** Names a gateway may set through Mcp-Bridge-Env. */
  allowedEnv: ReadonlySet<string>;
  singleton: boolean;
  idleTimeoutMs: number;
  log: Logger;
}

export interface RunningBridge {
  url: string;
  port: number;
  close(): Promise<void>;
}

interface Session {
  id: string;
  process: StdioProcess;
  stream: ServerResponse | undefined;
  lastUsed: number;
}

interface Shared {
  process: StdioProcess;
  envKey: string;
  initResult: unknown;
  initializedSent: boolean;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** npx may download the package on first start. */
const INITIALIZE_TIMEOUT_MS = 120_000;
const KEEPALIVE_MS = 25_000;
const SWEEP_MS = 30_000;

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function rpcError(id: JsonRpcMessage["id"], code: number, message: string): JsonRpcMessage {
  return { jsonrpc: "2.0", id: id ?? null, error: { code, message } };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function isRequest(message: JsonRpcMessage): boolean {
  return typeof message.method === "string" && message.id !== undefined && message.id !== null;
}

export class Bridge {
  private readonly sessions = new Map<string, Session>();
  private shared: Shared | undefined;
  private sharedStarting: Promise<Shared> | undefined;
  private readonly tokenDigest: Buffer;
  private readonly server: Server;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: BridgeOptions) {
    this.tokenDigest = digest(options.token);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        options.log("request_failed", { error: error instanceof Error ? error.message : String(error) });
        sendJson(res, 500, rpcError(null, -32603, "bridge failure"));
      });
    });
    this.sweeper = setInterval(() => this.sweepIdle(), Math.min(SWEEP_MS, Math.max(100, options.idleTimeoutMs / 2)));
    this.sweeper.unref();
  }

  listen(): Promise<RunningBridge> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port, this.options.host, () => {
        const { port } = this.server.address() as AddressInfo;
        const host = this.options.host.includes(":") ? `[${this.options.host}]` : this.options.host;
        const url = `http://${host}:${port}/mcp`;
        this.options.log("listening", { url, mode: this.options.singleton ? "singleton" : "per-session", command: this.options.command });
        if (!isLoopback(this.options.host)) {
          // Plain HTTP: the bearer token and Mcp-Bridge-Env values cross the network in clear.
          this.options.log("warning", { reason: "listening beyond loopback over plain HTTP; put TLS in front (e.g. a tunnel) before exposing it" });
        }
        resolve({ url, port, close: () => this.close() });
      });
    });
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const processes = new Set<StdioProcess>([...this.sessions.values()].map((s) => s.process));
    if (this.shared) processes.add(this.shared.process);
    for (const session of this.sessions.values()) session.stream?.end();
    this.sessions.clear();
    this.shared = undefined;
    await Promise.all([...processes].map((p) => p.kill()));
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    // Digests have equal length, so the comparison's time does not depend on the token.
    return match !== null && timingSafeEqual(digest(match[1]!.trim()), this.tokenDigest);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://bridge").pathname;
    if (path === "/healthz" && req.method === "GET") return sendJson(res, 200, { ok: true });
    if (path !== "/mcp") return sendJson(res, 404, { error: `no route ${path}; the MCP endpoint is /mcp` });
    if (!this.authorized(req)) {
      this.options.log("unauthorized", { method: req.method, from: req.socket.remoteAddress });
      return sendJson(res, 401, rpcError(null, -32001, "missing or wrong bearer token"), { "www-authenticate": 'Bearer realm="mcp-edge-bridge"' });
    }
    const sessionHeader = req.headers["mcp-session-id"];
    const sessionId = typeof sessionHeader === "string" ? sessionHeader : undefined;
    if (req.method === "POST") return this.post(req, res, sessionId);
    if (req.method === "GET") return this.openStream(req, res, sessionId);
    if (req.method === "DELETE") return this.deleteSession(res, sessionId);
    return sendJson(res, 405, rpcError(null, -32000, "Method not allowed"), { allow: "GET, POST, DELETE" });
  }

  private session(res: ServerResponse, sessionId: string | undefined): Session | undefined {
    if (sessionId === undefined) {
      sendJson(res, 400, rpcError(null, -32000, "Bad Request: Mcp-Session-Id header is required"));
      return undefined;
    }
    const session = this.sessions.get(sessionId);
    if (!session || !session.process.alive) {
      if (session) this.dropSession(session, "process_gone");
      sendJson(res, 404, rpcError(null, -32001, "Session not found"));
      return undefined;
    }
    session.lastUsed = Date.now();
    return session;
  }

  private async post(req: IncomingMessage, res: ServerResponse, sessionId: string | undefined): Promise<void> {
    const text = await readBody(req);
    if (text === undefined) return sendJson(res, 413, rpcError(null, -32600, `request body over ${MAX_BODY_BYTES} bytes`));
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(text) as JsonRpcMessage;
    } catch {
      return sendJson(res, 400, rpcError(null, -32700, "Parse error: body is not JSON"));
    }
    if (Array.isArray(message)) return sendJson(res, 400, rpcError(null, -32600, "JSON-RPC batches are not supported"));
    if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") {
      return sendJson(res, 400, rpcError(null, -32600, "Invalid Request: not a JSON-RPC 2.0 message"));
    }
    if (message.method === "initialize" && isRequest(message)) {
      if (sessionId !== undefined) return sendJson(res, 400, rpcError(message.id, -32600, "initialize must not carry Mcp-Session-Id"));
      return this.initialize(req, res, message);
    }
    const session = this.session(res, sessionId);
    if (!session) return;
    if (!isRequest(message)) {
      // A notification or an answer to one of the server's own requests.
      if (message.method === "notifications/initialized" && this.options.singleton) {
        if (this.shared && this.shared.process === session.process && !this.shared.initializedSent) {
          this.shared.initializedSent = true;
          session.process.send(message);
        }
      } else {
        session.process.send(message);
      }
      res.writeHead(202).end();
      return;
    }
    const { wireId, answer } = session.process.request(message, message.id!);
    const cancelOnDisconnect = () => {
      if (!res.writableFinished) session.process.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: wireId, reason: "client disconnected" } });
    };
    res.once("close", cancelOnDisconnect);
    try {
      sendJson(res, 200, await answer);
    } catch (error) {
      if (!(error instanceof ProcessExitedError)) throw error;
      this.options.log("call_failed", { session: session.id.slice(0, 8), method: message.method, reason: error.message });
      sendJson(res, 200, rpcError(message.id, BRIDGE_PROCESS_EXITED, `stdio process ${error.message} while handling ${message.method}; it is restarted on the next session`));
    } finally {
      res.off("close", cancelOnDisconnect);
    }
  }

  private async initialize(req: IncomingMessage, res: ServerResponse, message: JsonRpcMessage): Promise<void> {
    let env: Record<string, string>;
    try {
      const header = req.headers[BRIDGE_ENV_HEADER.toLowerCase()];
      env = gatewayEnv(typeof header === "string" ? header : undefined, this.options.allowedEnv);
    } catch (error) {
      if (!(error instanceof BridgeEnvError)) throw error;
      this.options.log("env_refused", { reason: error.message });
      return sendJson(res, 200, rpcError(message.id, -32602, error.message));
    }
    let process: StdioProcess;
    let result: unknown;
    try {
      if (this.options.singleton) {
        const shared = await this.ensureShared(env, message);
        process = shared.process;
        result = shared.initResult;
      } else {
        process = this.spawn(env);
        result = await this.initializeProcess(process, message);
      }
    } catch (error) {
      if (error instanceof InitializeFailed) return sendJson(res, 200, error.reply(message.id));
      throw error;
    }
    const session: Session = { id: randomUUID(), process, stream: undefined, lastUsed: Date.now() };
    this.sessions.set(session.id, session);
    if (!this.options.singleton) {
      process.onServerMessage = (m) => this.fromServer([session], process, m);
      process.onExit = () => this.dropSession(session, "process_exit");
    }
    this.options.log("session_open", { session: session.id.slice(0, 8), pid: process.pid, env_names: Object.keys(env).sort().join(",") || undefined });
    sendJson(res, 200, { jsonrpc: "2.0", id: message.id, result }, { "mcp-session-id": session.id });
  }

  private spawn(env: Record<string, string>): StdioProcess {
    const { command, args, cwd, baseEnv, log } = this.options;
    return new StdioProcess({ command, args, cwd, env: { ...baseEnv, ...env } }, log);
  }

  /** Forwards initialize; on failure the process is killed and InitializeFailed thrown. */
  private async initializeProcess(process: StdioProcess, message: JsonRpcMessage): Promise<unknown> {
    const { answer } = process.request(message, message.id!);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new InitializeFailed(-32603, `stdio process did not answer initialize within ${INITIALIZE_TIMEOUT_MS / 1000} s`)), INITIALIZE_TIMEOUT_MS);
    });
    try {
      const reply = await Promise.race([answer, timeout]);
      if (reply.error) throw new InitializeFailed(reply.error.code, reply.error.message);
      return reply.result;
    } catch (error) {
      await process.kill();
      if (error instanceof ProcessExitedError) throw new InitializeFailed(BRIDGE_PROCESS_EXITED, `stdio process ${error.message} before answering initialize`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private async ensureShared(env: Record<string, string>, message: JsonRpcMessage): Promise<Shared> {
    const key = envKey(env);
    while (this.sharedStarting) await this.sharedStarting.catch(() => undefined);
    if (this.shared?.process.alive) {
      if (this.shared.envKey !== key) {
        throw new InitializeFailed(-32602, "the shared (--singleton) process already runs with a different Mcp-Bridge-Env; use the same variables or a per-session bridge");
      }
      return this.shared;
    }
    this.sharedStarting = (async () => {
      const process = this.spawn(env);
      const initResult = await this.initializeProcess(process, message);
      const shared: Shared = { process, envKey: key, initResult, initializedSent: false };
      process.onServerMessage = (m) => this.fromServer([...this.sessions.values()].filter((s) => s.process === process), process, m);
      process.onExit = () => {
        if (this.shared === shared) this.shared = undefined;
        for (const session of [...this.sessions.values()]) if (session.process === process) this.dropSession(session, "process_exit");
      };
      this.shared = shared;
      return shared;
    })();
    try {
      return await this.sharedStarting;
    } finally {
      this.sharedStarting = undefined;
    }
  }

  /** Server-initiated messages go to the sessions' GET streams; requests nobody can answer are answered here. */
  private fromServer(sessions: Session[], process: StdioProcess, message: JsonRpcMessage): void {
    const open = sessions.filter((s) => s.stream && !s.stream.destroyed);
    if (isRequest(message)) {
      const target = open.sort((a, b) => b.lastUsed - a.lastUsed)[0];
      if (target) return writeEvent(target.stream!, message);
      if (message.method === "ping") return process.send({ jsonrpc: "2.0", id: message.id!, result: {} });
      return process.send(rpcError(message.id, -32601, `no client stream is open to forward ${message.method} to`));
    }
    for (const session of open) writeEvent(session.stream!, message);
  }

  private openStream(_req: IncomingMessage, res: ServerResponse, sessionId: string | undefined): void {
    const session = this.session(res, sessionId);
    if (!session) return;
    session.stream?.end();
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    session.stream = res;
    const keepalive = setInterval(() => res.write(": keepalive\n\n"), KEEPALIVE_MS);
    res.once("close", () => {
      clearInterval(keepalive);
      if (session.stream === res) session.stream = undefined;
      session.lastUsed = Date.now();
    });
  }

  private deleteSession(res: ServerResponse, sessionId: string | undefined): void {
    const session = this.session(res, sessionId);
    if (!session) return;
    this.dropSession(session, "deleted");
    sendJson(res, 200, {});
  }

  private dropSession(session: Session, reason: string): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    session.stream?.end();
    this.options.log("session_close", { session: session.id.slice(0, 8), reason });
    if (!this.options.singleton) void session.process.kill();
  }

  private sweepIdle(): void {
    const cutoff = Date.now() - this.options.idleTimeoutMs;
    for (const session of [...this.sessions.values()]) {
      if (session.stream === undefined && session.lastUsed < cutoff) this.dropSession(session, "idle");
    }
  }
}

class InitializeFailed extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  reply(id: JsonRpcMessage["id"]): JsonRpcMessage {
    return rpcError(id, this.code, this.message);
  }
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

function writeEvent(stream: ServerResponse, message: JsonRpcMessage): void {
  stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

export function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  return new Bridge(options).listen();
}

/**
 * One stdio server behind the bridge (the bridge's only one, or one plugin of `--plugins`): its
 * streamable HTTP sessions and their processes.
 *
 * - Per-session (default): `initialize` spawns a process for the new session; DELETE, the idle
 *   timeout or the bridge's exit kill it.
 * - Singleton (--singleton): one shared process; the first `initialize` starts it, later sessions
 *   get its cached initialize result.
 * - A session dies with its process: the call in flight answers a BRIDGE_PROCESS_EXITED JSON-RPC
 *   error, the next request on that session gets 404, and the client's re-initialisation starts a
 *   fresh process (the SDK and the gateway re-initialise on 404 by themselves).
 * - Every process takes a slot of the bridge's process limits first (limits.ts); a session belongs
 *   to the token that opened it and is unknown (404) to any other.
 * - `Mcp-Bridge-Env` sets declared variables for the process a session spawns.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { BRIDGE_AT_CAPACITY, BRIDGE_ENV_HEADER, BRIDGE_PROCESS_EXITED } from "../../workers/mcp-client/bridge-protocol";
import { BridgeEnvError, envKey, gatewayEnv } from "./env";
import { isRequest, MAX_BODY_BYTES, readBody, rpcError, sendJson, writeEvent } from "./http";
import { CapacityRefused, type Slot } from "./limits";
import type { Logger } from "./log";
import type { PluginSpec } from "./plugins";
import { type JsonRpcMessage, ProcessExitedError, StdioProcess } from "./process";

export interface HostOptions {
  spec: PluginSpec;
  singleton: boolean;
  idleTimeoutMs: number;
  /** A slot for one more process of `token`; throws CapacityRefused when a limit is reached. */
  acquire: (token: number) => Slot;
  log: Logger;
}

interface Session {
  id: string;
  /** Index of the bearer token that opened the session. */
  token: number;
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

/** npx may download the package on first start. */
const INITIALIZE_TIMEOUT_MS = 120_000;
const KEEPALIVE_MS = 25_000;

export class InitializeFailed extends Error {
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

export class PluginHost {
  private readonly sessions = new Map<string, Session>();
  private shared: Shared | undefined;
  private sharedStarting: Promise<Shared> | undefined;

  constructor(private readonly options: HostOptions) {}

  private get label(): string | undefined {
    return this.options.spec.name || undefined;
  }

  /** Serves one authenticated request on this server's MCP endpoint. */
  async handle(req: IncomingMessage, res: ServerResponse, token: number): Promise<void> {
    const sessionHeader = req.headers["mcp-session-id"];
    const sessionId = typeof sessionHeader === "string" ? sessionHeader : undefined;
    if (req.method === "POST") return this.post(req, res, sessionId, token);
    if (req.method === "GET") return this.openStream(res, sessionId, token);
    if (req.method === "DELETE") return this.deleteSession(res, sessionId, token);
    return sendJson(res, 405, rpcError(null, -32000, "Method not allowed"), { allow: "GET, POST, DELETE" });
  }

  /** Processes this host runs (sessions' and the shared one), for the bridge's shutdown. */
  processes(): Set<StdioProcess> {
    const processes = new Set<StdioProcess>([...this.sessions.values()].map((s) => s.process));
    if (this.shared) processes.add(this.shared.process);
    return processes;
  }

  /** Ends every session (their streams); the bridge kills the processes. */
  endSessions(): void {
    for (const session of this.sessions.values()) session.stream?.end();
    this.sessions.clear();
    this.shared = undefined;
  }

  /**
   * When the soonest of `token`'s (or anyone's) sessions holding a process of its own runs out of
   * idle time — the earliest a slot frees up by itself; undefined when none will.
   */
  soonestIdleEnd(token: number | undefined): number | undefined {
    if (this.options.singleton) return undefined;
    let soonest: number | undefined;
    for (const session of this.sessions.values()) {
      if (session.stream !== undefined || (token !== undefined && session.token !== token)) continue;
      const end = session.lastUsed + this.options.idleTimeoutMs;
      if (soonest === undefined || end < soonest) soonest = end;
    }
    return soonest;
  }

  sweepIdle(): void {
    const cutoff = Date.now() - this.options.idleTimeoutMs;
    for (const session of [...this.sessions.values()]) {
      if (session.stream === undefined && session.lastUsed < cutoff) this.dropSession(session, "idle");
    }
  }

  private session(res: ServerResponse, sessionId: string | undefined, token: number): Session | undefined {
    if (sessionId === undefined) {
      sendJson(res, 400, rpcError(null, -32000, "Bad Request: Mcp-Session-Id header is required"));
      return undefined;
    }
    const session = this.sessions.get(sessionId);
    if (!session || session.token !== token || !session.process.alive) {
      if (session && session.token === token) this.dropSession(session, "process_gone");
      sendJson(res, 404, rpcError(null, -32001, "Session not found"));
      return undefined;
    }
    session.lastUsed = Date.now();
    return session;
  }

  private async post(req: IncomingMessage, res: ServerResponse, sessionId: string | undefined, token: number): Promise<void> {
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
      return this.initialize(req, res, message, token);
    }
    const session = this.session(res, sessionId, token);
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
      if (!res.writableFinished)
        session.process.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: wireId, reason: "client disconnected" },
        });
    };
    res.once("close", cancelOnDisconnect);
    try {
      sendJson(res, 200, await answer);
    } catch (error) {
      if (!(error instanceof ProcessExitedError)) throw error;
      this.options.log("call_failed", {
        plugin: this.label,
        session: session.id.slice(0, 8),
        method: message.method,
        reason: error.message,
      });
      sendJson(
        res,
        200,
        rpcError(
          message.id,
          BRIDGE_PROCESS_EXITED,
          `stdio process ${error.message} while handling ${message.method}; it is restarted on the next session`,
        ),
      );
    } finally {
      res.off("close", cancelOnDisconnect);
    }
  }

  /** The session's variables: allowed names only, and every required one present (from the header or the bridge). */
  private sessionEnv(req: IncomingMessage): Record<string, string> {
    const header = req.headers[BRIDGE_ENV_HEADER.toLowerCase()];
    const env = gatewayEnv(typeof header === "string" ? header : undefined, this.options.spec.allowedEnv);
    const { requiredEnv, baseEnv, name } = this.options.spec;
    const missing = requiredEnv.filter((variable) => !env[variable] && !baseEnv[variable]);
    if (missing.length > 0) {
      throw new BridgeEnvError(
        `${name ? `plugin ${name}` : "this server"} requires ${missing.join(", ")}: set ${missing.length > 1 ? "them" : "it"} in the source's mcp_env_vars`,
      );
    }
    return env;
  }

  private async initialize(req: IncomingMessage, res: ServerResponse, message: JsonRpcMessage, token: number): Promise<void> {
    let env: Record<string, string>;
    try {
      env = this.sessionEnv(req);
    } catch (error) {
      if (!(error instanceof BridgeEnvError)) throw error;
      this.options.log("env_refused", { plugin: this.label, reason: error.message });
      return sendJson(res, 200, rpcError(message.id, -32602, error.message));
    }
    let process: StdioProcess;
    let result: unknown;
    try {
      if (this.options.singleton) {
        const shared = await this.ensureShared(env, message, token);
        process = shared.process;
        result = shared.initResult;
      } else {
        process = this.spawn(env, token);
        result = await this.initializeProcess(process, message);
      }
    } catch (error) {
      if (error instanceof InitializeFailed) return sendJson(res, 200, error.reply(message.id));
      if (error instanceof CapacityRefused) {
        this.options.log("capacity_refused", { plugin: this.label, token: token + 1, limit: error.reached.limit, max: error.reached.max });
        return sendJson(res, error.reached.status, rpcError(message.id, BRIDGE_AT_CAPACITY, error.message, error.data), {
          "retry-after": String(error.retryAfterS),
        });
      }
      throw error;
    }
    const session: Session = { id: randomUUID(), token, process, stream: undefined, lastUsed: Date.now() };
    this.sessions.set(session.id, session);
    if (!this.options.singleton) {
      process.onServerMessage = (m) => this.fromServer([session], process, m);
      process.onExit = () => this.dropSession(session, "process_exit");
    }
    this.options.log("session_open", {
      plugin: this.label,
      session: session.id.slice(0, 8),
      pid: process.pid,
      token: token + 1,
      env_names: Object.keys(env).sort().join(",") || undefined,
    });
    sendJson(res, 200, { jsonrpc: "2.0", id: message.id, result }, { "mcp-session-id": session.id });
  }

  /** Starts a process in a slot of `token`'s (CapacityRefused when none is free); the slot is freed when the process exits. */
  private spawn(env: Record<string, string>, token: number): StdioProcess {
    const slot = this.options.acquire(token);
    const { command, args, cwd, baseEnv } = this.options.spec;
    const process = new StdioProcess({ command, args, cwd, env: { ...baseEnv, ...env } }, this.options.log);
    void process.exited.then(() => slot.release());
    return process;
  }

  /** Forwards initialize; on failure the process is killed and InitializeFailed thrown. */
  private async initializeProcess(process: StdioProcess, message: JsonRpcMessage): Promise<unknown> {
    const { answer } = process.request(message, message.id!);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new InitializeFailed(-32603, `stdio process did not answer initialize within ${INITIALIZE_TIMEOUT_MS / 1000} s`)),
        INITIALIZE_TIMEOUT_MS,
      );
    });
    try {
      const reply = await Promise.race([answer, timeout]);
      if (reply.error) throw new InitializeFailed(reply.error.code, reply.error.message);
      return reply.result;
    } catch (error) {
      await process.kill();
      if (error instanceof ProcessExitedError)
        throw new InitializeFailed(BRIDGE_PROCESS_EXITED, `stdio process ${error.message} before answering initialize`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private async ensureShared(env: Record<string, string>, message: JsonRpcMessage, token: number): Promise<Shared> {
    const key = envKey(env);
    while (this.sharedStarting) await this.sharedStarting.catch(() => undefined);
    if (this.shared?.process.alive) {
      if (this.shared.envKey !== key) {
        throw new InitializeFailed(
          -32602,
          "the shared (--singleton) process already runs with a different Mcp-Bridge-Env; use the same variables or a per-session bridge",
        );
      }
      return this.shared;
    }
    this.sharedStarting = (async () => {
      const process = this.spawn(env, token);
      const initResult = await this.initializeProcess(process, message);
      const shared: Shared = { process, envKey: key, initResult, initializedSent: false };
      process.onServerMessage = (m) =>
        this.fromServer(
          [...this.sessions.values()].filter((s) => s.process === process),
          process,
          m,
        );
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

  private openStream(res: ServerResponse, sessionId: string | undefined, token: number): void {
    const session = this.session(res, sessionId, token);
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

  private deleteSession(res: ServerResponse, sessionId: string | undefined, token: number): void {
    const session = this.session(res, sessionId, token);
    if (!session) return;
    this.dropSession(session, "deleted");
    sendJson(res, 200, {});
  }

  private dropSession(session: Session, reason: string): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    session.stream?.end();
    this.options.log("session_close", { plugin: this.label, session: session.id.slice(0, 8), reason });
    if (!this.options.singleton) void session.process.kill();
  }
}

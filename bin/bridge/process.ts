/**
 * One stdio MCP server process: newline-delimited JSON-RPC on stdin/stdout. Requests get
 * bridge-assigned ids (several HTTP sessions may share one process), so answers are matched
 * without trusting client ids to be unique. When the process exits, every pending request is
 * rejected with ProcessExitedError and the process is never reused.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Logger } from "./log";

export type JsonRpcId = string | number;
export interface JsonRpcMessage {
  jsonrpc: "2.0";
  id?: JsonRpcId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export class ProcessExitedError extends Error {
  override readonly name = "ProcessExitedError";
}

export interface LaunchSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
}

/** Children get this long to exit after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2_000;

export class StdioProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<string, { resolve: (message: JsonRpcMessage) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  /** Set once the process is gone (exit, spawn failure or kill). */
  exit: { code: number | null; signal: string | null; error?: string } | undefined;
  /** Server-initiated messages (notifications and requests). */
  onServerMessage: (message: JsonRpcMessage) => void = () => undefined;
  onExit: () => void = () => undefined;
  readonly exited: Promise<void>;

  constructor(
    spec: LaunchSpec,
    private readonly log: Logger,
  ) {
    this.child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: spec.env as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group, so a launcher's children (npx → node) die with it.
      detached: process.platform !== "win32",
    });
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: string | null, error?: string) => {
        if (this.exit) return;
        this.exit = { code, signal, ...(error ? { error } : {}) };
        this.log("process_exit", { pid: this.child.pid, code, signal, error });
        const failure = new ProcessExitedError(this.describeExit());
        for (const waiter of this.pending.values()) waiter.reject(failure);
        this.pending.clear();
        this.onExit();
        resolve();
      };
      this.child.once("exit", (code, signal) => done(code, signal));
      this.child.once("error", (error) => done(null, null, error.message));
    });
    this.child.stdin?.on("error", () => undefined); // EPIPE after a crash: the exit handler reports it
    createInterface({ input: this.child.stdout! }).on("line", (line) => this.receive(line));
    createInterface({ input: this.child.stderr! }).on("line", (line) => process.stderr.write(`[pid ${this.child.pid}] ${line}\n`));
    this.log("process_start", { pid: this.child.pid, command: spec.command });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  describeExit(): string {
    const exit = this.exit;
    if (!exit) return "running";
    if (exit.error) return `could not be started: ${exit.error}`;
    return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  }

  /**
   * Sends a request under a fresh wire id; `answer` resolves with the reply, its id restored to
   * `id`. The wire id is what a notifications/cancelled for this request must name.
   */
  request(message: JsonRpcMessage, id: JsonRpcId): { wireId: string; answer: Promise<JsonRpcMessage> } {
    const wireId = `bridge-${this.nextId++}`;
    if (!this.alive) return { wireId, answer: Promise.reject(new ProcessExitedError(this.describeExit())) };
    const answer = new Promise<JsonRpcMessage>((resolve, reject) => this.pending.set(wireId, { resolve, reject })).then((reply) => ({
      ...reply,
      id,
    }));
    this.write({ ...message, id: wireId });
    return { wireId, answer };
  }

  /** Notifications, and answers to the server's own requests (their ids are the server's). */
  send(message: JsonRpcMessage): void {
    if (this.alive) this.write(message);
  }

  kill(): Promise<void> {
    if (this.alive && this.child.pid !== undefined) {
      this.signal("SIGTERM");
      // Not unref'd: a bridge shutting down must stay until its children are really gone.
      const timer = setTimeout(() => this.signal("SIGKILL"), KILL_GRACE_MS);
      void this.exited.then(() => clearTimeout(timer));
    }
    return this.exited;
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      if (this.child.pid !== undefined) process.kill(process.platform === "win32" ? this.child.pid : -this.child.pid, signal);
    } catch {
      // already gone
    }
  }

  private write(message: JsonRpcMessage): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === "") return;
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(line) as JsonRpcMessage;
    } catch {
      this.log("stdout_not_json", { pid: this.child.pid, bytes: line.length });
      return;
    }
    if (typeof message !== "object" || message === null) return;
    if (message.method === undefined && message.id !== undefined && message.id !== null) {
      const waiter = this.pending.get(String(message.id));
      if (waiter) {
        this.pending.delete(String(message.id));
        waiter.resolve(message);
      }
      return;
    }
    this.onServerMessage(message);
  }
}

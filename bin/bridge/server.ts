/**
 * `mcp-edge bridge`: exposes stdio MCP servers as streamable HTTP (2025-06-18 / 2025-11-25
 * sessions) behind bearer tokens, forwarding JSON-RPC as it is (ids rewritten, see process.ts).
 * Workers cannot spawn processes, so the gateway registers the bridge as a remote source
 * (transport `stdio`).
 *
 * - One server (`--manifest`, or `-- <command>`) at /mcp.
 * - `--plugins DIR`: every plugin directory at /plugins/<name>/mcp; GET /plugins lists them and
 *   GET /plugins/<name> answers its manifest (secret defaults redacted), which the gateway reads
 *   at registration.
 * - Processes are capped per token and in total (limits.ts); a full bridge answers initialize
 *   with 429 (this token's share is used up) or 503 (all slots are), Retry-After and a
 *   BRIDGE_AT_CAPACITY JSON-RPC error naming the limit. Sessions and processes: host.ts.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pluginEndpoint } from "../../workers/gateway/registry/bridge-plugins";
import { PluginHost } from "./host";
import { rpcError, sendJson } from "./http";
import { CapacityRefused, isLimitReached, ProcessLimits, type Slot } from "./limits";
import type { Logger } from "./log";
import type { PluginSpec } from "./plugins";

export interface BridgeOptions {
  host: string;
  port: number;
  /** Bearer tokens, each its own share of processes (--max-processes-per-token). */
  tokens: readonly string[];
  /** `single`: the one server at /mcp; `plugins`: each at /plugins/<name>/mcp. */
  serve: { kind: "single"; plugin: PluginSpec } | { kind: "plugins"; plugins: readonly PluginSpec[] };
  singleton: boolean;
  idleTimeoutMs: number;
  maxProcesses: number;
  maxProcessesPerToken: number;
  log: Logger;
}

export interface RunningBridge {
  /** /mcp of a single-server bridge; the base URL (what a plugin registration names) of a plugins bridge. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const SWEEP_MS = 30_000;
const PLUGIN_PATH = /^\/plugins\/([^/]+)(\/mcp)?$/;

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

export class Bridge {
  private readonly hosts = new Map<string, { spec: PluginSpec; host: PluginHost }>();
  private readonly limits: ProcessLimits;
  private readonly tokenDigests: Buffer[];
  private readonly server: Server;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: BridgeOptions) {
    this.tokenDigests = options.tokens.map(digest);
    this.limits = new ProcessLimits(options.maxProcesses, options.maxProcessesPerToken);
    const specs = options.serve.kind === "single" ? [options.serve.plugin] : options.serve.plugins;
    for (const spec of specs) {
      const host = new PluginHost({
        spec,
        singleton: options.singleton,
        idleTimeoutMs: options.idleTimeoutMs,
        acquire: (token) => this.acquire(token),
        log: options.log,
      });
      this.hosts.set(spec.name, { spec, host });
    }
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
        const base = `http://${host}:${port}`;
        const url = this.options.serve.kind === "single" ? `${base}/mcp` : base;
        const limits = {
          max_processes: this.options.maxProcesses,
          max_processes_per_token: this.options.maxProcessesPerToken,
          tokens: this.options.tokens.length,
        };
        if (this.options.serve.kind === "single") {
          this.options.log("listening", {
            url,
            mode: this.options.singleton ? "singleton" : "per-session",
            command: this.options.serve.plugin.command,
            ...limits,
          });
        } else {
          this.options.log("listening", {
            url,
            mode: this.options.singleton ? "singleton" : "per-session",
            plugins: this.hosts.size,
            ...limits,
          });
          for (const { spec } of this.hosts.values())
            this.options.log("plugin", { name: spec.name, endpoint: pluginEndpoint(url, spec.name), command: spec.command });
        }
        if (!isLoopback(this.options.host)) {
          // Plain HTTP: the bearer token and Mcp-Bridge-Env values cross the network in clear.
          this.options.log("warning", {
            reason: "listening beyond loopback over plain HTTP; put TLS in front (e.g. a tunnel) before exposing it",
          });
        }
        resolve({ url, port, close: () => this.close() });
      });
    });
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const processes = [...this.hosts.values()].flatMap(({ host }) => [...host.processes()]);
    for (const { host } of this.hosts.values()) host.endSessions();
    await Promise.all(processes.map((p) => p.kill()));
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** The index of the token the request carries, or -1. Every digest is compared, so timing tells nothing about which. */
  private tokenOf(req: IncomingMessage): number {
    const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
    if (match === null) return -1;
    const presented = digest(match[1]!.trim());
    let found = -1;
    this.tokenDigests.forEach((known, index) => {
      if (timingSafeEqual(presented, known) && found === -1) found = index;
    });
    return found;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://bridge").pathname;
    if (path === "/healthz" && req.method === "GET") return sendJson(res, 200, { ok: true });
    const token = this.tokenOf(req);
    if (token === -1) {
      this.options.log("unauthorized", { method: req.method, path, from: req.socket.remoteAddress });
      return sendJson(res, 401, rpcError(null, -32001, "missing or wrong bearer token"), {
        "www-authenticate": 'Bearer realm="mcp-edge-bridge"',
      });
    }
    if (this.options.serve.kind === "single") {
      if (path === "/mcp") return this.hosts.get(this.options.serve.plugin.name)!.host.handle(req, res, token);
      return sendJson(res, 404, { error: `no route ${path}; the MCP endpoint is /mcp` });
    }
    if (path === "/plugins" && req.method === "GET") {
      return sendJson(res, 200, {
        plugins: [...this.hosts.values()].map(({ spec }) => ({ name: spec.name, endpoint: `/plugins/${spec.name}/mcp` })),
      });
    }
    const match = PLUGIN_PATH.exec(path);
    const served = match ? this.hosts.get(match[1]!) : undefined;
    if (!match || !served) {
      const known = [...this.hosts.keys()].join(", ");
      return sendJson(res, 404, {
        error: `no route ${path}; this bridge serves its plugins (${known}) at /plugins/<name>/mcp, and lists them at /plugins`,
      });
    }
    if (match[2] === "/mcp") return served.host.handle(req, res, token);
    if (req.method !== "GET") return sendJson(res, 405, { error: "GET only" }, { allow: "GET" });
    const { name, manifest, providedEnv } = served.spec;
    return sendJson(res, 200, { name, endpoint: `/plugins/${name}/mcp`, manifest, provided_env: providedEnv });
  }

  /** A process slot for `token`, or CapacityRefused with when to retry. */
  private acquire(token: number): Slot {
    const slot = this.limits.acquire(token);
    if (!isLimitReached(slot)) return slot;
    throw new CapacityRefused(slot, this.retryAfterS(slot.limit === "max_processes_per_token" ? token : undefined));
  }

  /** Seconds until the soonest session that would free a slot (of `token`'s, or anyone's) runs out of idle time. */
  private retryAfterS(token: number | undefined): number {
    const idleS = Math.ceil(this.options.idleTimeoutMs / 1000);
    let soonest: number | undefined;
    for (const { host } of this.hosts.values()) {
      const end = host.soonestIdleEnd(token);
      if (end !== undefined && (soonest === undefined || end < soonest)) soonest = end;
    }
    if (soonest === undefined) return idleS;
    return Math.min(idleS, Math.max(1, Math.ceil((soonest - Date.now()) / 1000)));
  }

  private sweepIdle(): void {
    for (const { host } of this.hosts.values()) host.sweepIdle();
  }
}

export function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  return new Bridge(options).listen();
}

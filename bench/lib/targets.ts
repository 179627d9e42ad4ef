/**
 * Starts the four targets of one bench run, seeds their stores and proves each (target, tool) answers
 * a real result before any load is applied:
 *   mcp-edge  – workers/index.ts bundled, on workerd, with wrangler.toml's bindings and vars
 *   ceiling   – a Worker answering mcp-edge's own sample responses, fixed
 *   d1-floor  – a Worker running mcp-edge's D1 statements with no MCP library
 *   node-sdk  – the official SDK v1 on node:http + node:sqlite (child process)
 *   gateway   – mcp-edge's /mcp calling /mcp/tasks of a second mcp-edge workerd (the upstream,
 *               seeded alike) as a registered source: a stateless upstream, called from the Worker's
 *               isolate, its CPU in another process, as on Cloudflare (a source is never on the
 *               Worker's own origin, decision 0057)
 *   gateway sessionful – mcp-edge's /mcp calling the node-sdk peer keeping sessions, through the
 *               source's Durable Object (`--only gateway`; no direct twin, the upstream differs)
 */
import { join } from "node:path";
import { generateToken, hashToken } from "../../workers/auth/tokens";
import { bundleWorker } from "./bundle";
import type { Cleanup } from "./cleanup";
import { sendOnce, type SampleResponse } from "./client";
import { freePort } from "../../bin/lib/ports";
import { gatewayRoute, gatewayVars, registerSource, registerTasksSource, SESSIONFUL_SOURCE_NAME } from "./gateway";
import { DIRECT, MCP_PATH, type Route, sampleProblem, type Tool, TOOLS } from "./mcp";
import { migrationStatements } from "./migrations";
import { startNodePeer } from "./node-peer";
import { BENCH_USER_ID, runOnD1, seedStatements } from "./seed";
import { withBenchRateLimits } from "./rate-limits";
import { serveWorker, type ServedWorker, wranglerWorkerOptions } from "./workerd";

/**
 * "mcp-edge sdk-path" and "gateway built-in" exist only in the gateway latency phase: the same
 * list_tasks answered by the SDK instead of the fast path, and a built-in tool called on /mcp,
 * which split the gateway's added time into its parts. "mcp-edge oauth" is mcp-edge called with
 * an OAuth access token (`--only oauth`).
 */
export const TARGET_NAMES = [
  "mcp-edge",
  "gateway",
  "gateway sessionful",
  "node-sdk",
  "d1-floor",
  "ceiling",
  "mcp-edge sdk-path",
  "gateway built-in",
  "mcp-edge oauth",
] as const;
/**
 * `mcp-edge@<commit>`: another commit served beside the work tree (`--compare`, bench/lib/compare.ts);
 * `gateway@<commit>`: that commit's gateway calling the same upstream workerd (`--only gateway --compare`).
 */
export type TargetName = (typeof TARGET_NAMES)[number] | `mcp-edge@${string}` | `gateway@${string}`;

export interface Target {
  name: TargetName;
  url: URL;
  /** Path, tool-name prefix and headers of this target's requests. */
  route: Route;
  /** The server process, for the CPU phase. */
  pid: number | undefined;
  tools: readonly Tool[];
  /** Worker-side warnings/errors seen so far (workerd targets only). */
  problems: () => readonly string[];
  /** This target's own bearer token (the OAuth row); default: the run's API token. */
  token?: string;
  /** The Worker whose outbox add_task fills (and its queue consumer drains): waited for after add_task cells. */
  outbox?: ServedWorker;
}

export interface SampleInfo {
  target: TargetName;
  tool: Tool;
  status: number;
  contentType: string;
  bytes: number;
}

export interface Fleet {
  token: string;
  tokenHash: string;
  targets: Target[];
  samples: SampleInfo[];
  mcpEdge: ServedWorker;
  /** The gateway rows' upstream workerd (none for `--only tasks`). */
  upstream: ServedWorker | undefined;
  /** Path of mcp-edge's bundle (the profile maps its lines back to packages). */
  mcpEdgeBundle: string;
  /** The direct list_tasks, the gateway's list_tasks and the two breakdown steps between them (none for `--only tasks`). */
  gatewayLadder: Target[];
}

export interface FleetPaths {
  root: string;
  tmp: string;
}

/** Applies `root`'s migrations and seeds the bench user, token and tasks. */
export async function seedD1(worker: ServedWorker, root: string, tokenHash: string, tasks: number): Promise<void> {
  const d1 = await worker.miniflare.getD1Database("DB");
  await runOnD1(
    d1,
    migrationStatements(join(root, "d1/migrations")).map((sql) => ({ sql, params: [] })),
  );
  await runOnD1(d1, seedStatements(tokenHash, tasks));
}

export async function checkedSample(
  target: TargetName,
  url: URL,
  token: string,
  tool: Tool,
  route: Route = DIRECT,
): Promise<SampleResponse> {
  const sample = await sendOnce(url, token, tool, route);
  const problem = sampleProblem(tool, sample.status, sample.contentType, sample.body);
  if (problem) throw new Error(`${target} ${tool}: the sample response is not a real result — ${problem}`);
  return sample;
}

export function workerTarget(name: TargetName, worker: ServedWorker, tools: readonly Tool[], route: Route = DIRECT): Target {
  return { name, url: worker.url, route, pid: worker.pid, tools, problems: () => worker.problems };
}

/**
 * Direct → SDK path → built-in tool on /mcp → source tool on /mcp, all list_tasks on one Worker;
 * `gatewayPrefix` is its upstream tasks source's (withTasksSource).
 */
export function gatewayLadder(worker: ServedWorker, gatewayPrefix: string): Target[] {
  return [
    workerTarget("mcp-edge", worker, ["list_tasks"]),
    workerTarget("mcp-edge sdk-path", worker, ["list_tasks"], { ...DIRECT, sdkOnly: true }),
    workerTarget("gateway built-in", worker, ["list_tasks"], gatewayRoute("")),
    workerTarget("gateway", worker, ["list_tasks"], gatewayRoute(gatewayPrefix)),
  ];
}

/**
 * Registers `upstream`'s /mcp/tasks as the gateway source of `worker` (the bench user's, acting as
 * that user there: both are seeded with the same token) and returns the prefix of its tools on /mcp.
 */
export function withTasksSource(worker: ServedWorker, upstream: ServedWorker, token: string): Promise<string> {
  return registerTasksSource(worker.url, token, upstream.url);
}

/**
 * Starts mcp-edge from its bundle with wrangler.toml's options (plus the gateway's local settings,
 * and per-user rate limits the bench's one user cannot reach) and seeds it; shared by every phase,
 * and by the gateway rows' upstream.
 */
export async function startMcpEdge(
  paths: FleetPaths,
  cleanup: Cleanup,
  input: {
    label: string;
    bundle: string;
    token: string;
    tokenHash: string;
    seedTasks: number;
    vars?: Record<string, string>;
    inspectorPort?: number;
  },
): Promise<ServedWorker> {
  const port = await freePort();
  const worker = await serveWorker({
    name: "mcp-edge",
    scriptPath: input.bundle,
    options: withBenchRateLimits(wranglerWorkerOptions(join(paths.root, "wrangler.toml"), { ...gatewayVars(port), ...input.vars })),
    port,
    ...(input.inspectorPort !== undefined ? { inspectorPort: input.inspectorPort } : {}),
  });
  cleanup.add(input.label, () => worker.dispose());
  await seedD1(worker, paths.root, input.tokenHash, input.seedTasks);
  return worker;
}

/** The sessionful row: the node-sdk peer keeping sessions, registered as a source of the bench user. */
async function sessionfulTarget(
  paths: FleetPaths,
  cleanup: Cleanup,
  mcpEdge: ServedWorker,
  token: string,
  tokenHash: string,
  seedTasks: number,
): Promise<Target> {
  const peer = await startNodePeer(paths.root, {
    BENCH_DB_PATH: join(paths.tmp, "node-sdk-sessions.sqlite"),
    BENCH_MIGRATIONS_DIR: join(paths.root, "d1/migrations"),
    BENCH_TOKEN_HASH: tokenHash,
    BENCH_SEED_TASKS: String(seedTasks),
    BENCH_PEER_SESSIONS: "1",
  });
  cleanup.add("node-sdk peer (sessions)", () => peer.dispose());
  const prefix = await registerSource(mcpEdge.url, token, SESSIONFUL_SOURCE_NAME, new URL(MCP_PATH, peer.url));
  return workerTarget("gateway sessionful", mcpEdge, ["list_tasks"], gatewayRoute(prefix));
}

/**
 * Which targets a run starts: "all"; "gateway", mcp-edge alone for the gateway rows (`--only
 * gateway`); "tasks", mcp-edge and the D1 floor for the two tasks rows (`--only tasks`).
 */
export type FleetSubset = "all" | "gateway" | "tasks";

const TASK_TOOLS: readonly Tool[] = ["list_tasks", "add_task"];

export async function startFleet(paths: FleetPaths, cleanup: Cleanup, seedTasks: number, subset: FleetSubset = "all"): Promise<Fleet> {
  const token = generateToken();
  const tokenHash = await hashToken(token);
  const samples: SampleInfo[] = [];
  const record = (target: TargetName, tool: Tool, sample: SampleResponse) =>
    samples.push({ target, tool, status: sample.status, contentType: sample.contentType, bytes: Buffer.byteLength(sample.body) });

  const mcpEdgeBundle = await bundleWorker(join(paths.root, "workers/index.ts"), join(paths.tmp, "mcp-edge", "index.js"));
  const mcpEdge = await startMcpEdge(paths, cleanup, { label: "mcp-edge workerd", bundle: mcpEdgeBundle, token, tokenHash, seedTasks });
  const captured: Record<string, { body: string; contentType: string }> = {};
  for (const tool of TOOLS) {
    const sample = await checkedSample("mcp-edge", mcpEdge.url, token, tool);
    record("mcp-edge", tool, sample);
    captured[tool] = { body: sample.body, contentType: sample.contentType };
  }
  const edge = (tools: readonly Tool[]): Target => ({ ...workerTarget("mcp-edge", mcpEdge, tools), outbox: mcpEdge });

  const compatibility = wranglerWorkerOptions(join(paths.root, "wrangler.toml"));
  const peerOptions = { compatibilityDate: compatibility.compatibilityDate, compatibilityFlags: compatibility.compatibilityFlags };
  if (subset === "tasks") {
    const floor = await startFloor(paths, cleanup, peerOptions, tokenHash, seedTasks);
    const targets = [edge(TASK_TOOLS), workerTarget("d1-floor", floor, TASK_TOOLS)];
    for (const tool of TASK_TOOLS) record("d1-floor", tool, await checkedSample("d1-floor", floor.url, token, tool));
    return { token, tokenHash, targets, samples, mcpEdge, upstream: undefined, mcpEdgeBundle, gatewayLadder: [] };
  }

  const upstreamInput = { label: "mcp-edge upstream workerd", bundle: mcpEdgeBundle, token, tokenHash, seedTasks };
  const upstream = await startMcpEdge(paths, cleanup, upstreamInput);
  const ladder = gatewayLadder(mcpEdge, await withTasksSource(mcpEdge, upstream, token));
  for (const step of ladder.slice(1)) {
    record(step.name, "list_tasks", await checkedSample(step.name, step.url, token, "list_tasks", step.route));
  }
  const gateway = ladder.at(-1)!;
  if (subset === "gateway") {
    const sessionful = await sessionfulTarget(paths, cleanup, mcpEdge, token, tokenHash, seedTasks);
    record(sessionful.name, "list_tasks", await checkedSample(sessionful.name, sessionful.url, token, "list_tasks", sessionful.route));
    const targets = [edge(["list_tasks"]), gateway, sessionful];
    return { token, tokenHash, targets, samples, mcpEdge, upstream, mcpEdgeBundle, gatewayLadder: ladder };
  }

  const floor = await startFloor(paths, cleanup, peerOptions, tokenHash, seedTasks);

  const ceiling = await serveWorker({
    name: "ceiling",
    scriptPath: await bundleWorker(join(paths.root, "bench/peers/ceiling.worker.ts"), join(paths.tmp, "ceiling", "index.js")),
    options: { ...peerOptions, bindings: { RESPONSES: JSON.stringify(captured) } },
  });
  cleanup.add("ceiling workerd", () => ceiling.dispose());

  const nodePeer = await startNodePeer(paths.root, {
    BENCH_DB_PATH: join(paths.tmp, "node-sdk.sqlite"),
    BENCH_MIGRATIONS_DIR: join(paths.root, "d1/migrations"),
    BENCH_TOKEN_HASH: tokenHash,
    BENCH_SEED_TASKS: String(seedTasks),
  });
  cleanup.add("node-sdk peer", () => nodePeer.dispose());

  const targets: Target[] = [
    edge(TOOLS),
    gateway,
    { name: "node-sdk", url: nodePeer.url, route: DIRECT, pid: nodePeer.pid, tools: TOOLS, problems: () => [] },
    // tools/list touches no storage, so a D1 floor for it would just be the ceiling again.
    workerTarget("d1-floor", floor, ["list_tasks", "add_task"]),
    workerTarget("ceiling", ceiling, TOOLS),
  ];
  for (const target of targets) {
    if (target.name === "mcp-edge" || target.name === "gateway") continue;
    for (const tool of target.tools) record(target.name, tool, await checkedSample(target.name, target.url, token, tool));
  }
  return { token, tokenHash, targets, samples, mcpEdge, upstream, mcpEdgeBundle, gatewayLadder: ladder };
}

async function startFloor(
  paths: FleetPaths,
  cleanup: Cleanup,
  peerOptions: Parameters<typeof serveWorker>[0]["options"],
  tokenHash: string,
  seedTasks: number,
): Promise<ServedWorker> {
  const floor = await serveWorker({
    name: "d1-floor",
    scriptPath: await bundleWorker(join(paths.root, "bench/peers/d1-floor.worker.ts"), join(paths.tmp, "d1-floor", "index.js")),
    options: { ...peerOptions, d1Databases: { DB: "d1-floor" }, bindings: { USER_ID: String(BENCH_USER_ID) } },
  });
  cleanup.add("d1-floor workerd", () => floor.dispose());
  await seedD1(floor, paths.root, tokenHash, seedTasks);
  return floor;
}

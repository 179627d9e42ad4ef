/**
 * Server CPU per request, measured from outside: N sequential requests on one connection, and the
 * server process's user+system CPU time (Linux /proc) before and after. For workerd this covers
 * everything in the process — HTTP, Miniflare's entry Worker, our Worker's JS, and D1's SQLite
 * (local D1 runs in the same workerd process, unlike production) — which is why the ceiling and
 * d1-floor are measured the same way: differences between targets are what the Worker's code costs.
 */
import { sendSequential } from "./client";
import { DIRECT, type Route, type Tool } from "./mcp";
import { cpuTimeMs } from "./proc";

export interface CpuMeasurement {
  target: string;
  tool: Tool;
  requests: number;
  /** Server process CPU (user + system) per request. */
  cpu_ms_per_request: number;
  /** Client-observed time per sequential request (includes the bench's own client). */
  wall_ms_per_request: number;
}

const WARMUP_REQUESTS = 100;

export async function measureCpu(input: {
  target: string;
  url: URL;
  pid: number | undefined;
  token: string;
  tool: Tool;
  route?: Route;
  requests: number;
  /** Deferred work to wait for before reading the end CPU (the queue consumer, for add_task). */
  settle?: () => Promise<void>;
}): Promise<CpuMeasurement | undefined> {
  if (input.pid === undefined) return undefined;
  const route = input.route ?? DIRECT;
  await sendSequential(input.url, input.token, input.tool, WARMUP_REQUESTS, route);
  await input.settle?.();
  const cpuBefore = cpuTimeMs(input.pid);
  const started = performance.now();
  await sendSequential(input.url, input.token, input.tool, input.requests, route);
  const wall = performance.now() - started;
  await input.settle?.();
  const cpuAfter = cpuTimeMs(input.pid);
  if (cpuBefore === undefined || cpuAfter === undefined) return undefined;
  return {
    target: input.target,
    tool: input.tool,
    requests: input.requests,
    cpu_ms_per_request: (cpuAfter - cpuBefore) / input.requests,
    wall_ms_per_request: wall / input.requests,
  };
}

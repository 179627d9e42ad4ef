/**
 * Bench settings, from flags (`npm run bench -- --round-seconds 3`) or environment variables
 * (BENCH_ROUND_SECONDS=3). Defaults keep a full run under ~10 minutes on a 2-core machine:
 * 11 (target, tool) cells × 5 rounds × 6 s of load, plus warm-up, settling and the CPU phase.
 */
import { parseArgs } from "node:util";

export interface BenchConfig {
  /** Seconds of load per (target, tool) per round. */
  roundSeconds: number;
  /** Alternating rounds; the table reports the median over them. */
  rounds: number;
  /** Concurrent autocannon connections. */
  connections: number;
  /** Seconds of unrecorded load per cell before round 1 (JIT, isolate and SQLite page cache warm-up). */
  warmupSeconds: number;
  /** Sequential requests per CPU-phase measurement (3 passes each) and per profiled tool. */
  cpuRequests: number;
  /** Tasks seeded for the bench user in every store. */
  seedTasks: number;
  /** Skip the inspector CPU profile (the slowest part of the CPU phase). */
  skipProfile: boolean;
  /**
   * "gateway": only mcp-edge, only the gateway rows (direct vs gateway list_tasks, the latency
   * ladder, their CPU and profile); no peers, no bundle, no micro-benchmark. Results go to
   * bench/results/gateway-*.json so the full run's latest.json is left alone.
   * "oauth": only mcp-edge, tools/list and list_tasks with an OAuth access token against an API
   * token (bench/lib/oauth-row.ts), into bench/results/oauth-*.json.
   * "startup": only the startup and bundle section (bench/lib/startup.ts), into
   * bench/results/startup-*.json.
   */
  only: "gateway" | "oauth" | "startup" | undefined;
  /** `wrangler check startup` repetitions per variant (startup section). */
  startupReps: number;
}

const OPTIONS = {
  "round-seconds": { env: "BENCH_ROUND_SECONDS", fallback: 6, min: 1, max: 120 },
  rounds: { env: "BENCH_ROUNDS", fallback: 5, min: 1, max: 50 },
  connections: { env: "BENCH_CONNECTIONS", fallback: 32, min: 1, max: 1024 },
  "warmup-seconds": { env: "BENCH_WARMUP_SECONDS", fallback: 2, min: 0, max: 60 },
  "cpu-requests": { env: "BENCH_CPU_REQUESTS", fallback: 500, min: 50, max: 100_000 },
  "seed-tasks": { env: "BENCH_SEED_TASKS", fallback: 1000, min: 25, max: 100_000 },
  "startup-reps": { env: "BENCH_STARTUP_REPS", fallback: 7, min: 1, max: 100 },
} as const;

type NumericOption = keyof typeof OPTIONS;

function numberOption(name: NumericOption, flags: Record<string, string | boolean | undefined>): number {
  const spec = OPTIONS[name];
  const raw = flags[name] ?? process.env[spec.env];
  if (raw === undefined || typeof raw === "boolean") return spec.fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < spec.min || value > spec.max) {
    throw new Error(`--${name} / ${spec.env}: expected a number from ${spec.min} to ${spec.max}, got "${raw}"`);
  }
  return value;
}

function onlyOption(raw: string | undefined): BenchConfig["only"] {
  if (raw === undefined || raw === "") return undefined;
  if (raw === "gateway" || raw === "oauth" || raw === "startup") return raw;
  throw new Error(`--only / BENCH_ONLY: the subsets are "gateway", "oauth" and "startup", got "${raw}"`);
}

export function readConfig(argv: readonly string[] = process.argv.slice(2)): BenchConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "round-seconds": { type: "string" },
      rounds: { type: "string" },
      connections: { type: "string" },
      "warmup-seconds": { type: "string" },
      "cpu-requests": { type: "string" },
      "seed-tasks": { type: "string" },
      "startup-reps": { type: "string" },
      "skip-profile": { type: "boolean" },
      only: { type: "string" },
    },
    strict: true,
  });
  return {
    roundSeconds: numberOption("round-seconds", values),
    rounds: Math.round(numberOption("rounds", values)),
    connections: Math.round(numberOption("connections", values)),
    warmupSeconds: numberOption("warmup-seconds", values),
    cpuRequests: Math.round(numberOption("cpu-requests", values)),
    seedTasks: Math.round(numberOption("seed-tasks", values)),
    startupReps: Math.round(numberOption("startup-reps", values)),
    skipProfile: values["skip-profile"] === true || process.env["BENCH_SKIP_PROFILE"] === "1",
    only: onlyOption(values.only ?? process.env["BENCH_ONLY"]),
  };
}

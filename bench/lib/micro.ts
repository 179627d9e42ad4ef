/** Runs the Node micro-benchmark (bench/micro/server-construction.ts) in a fresh child process. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface MicroResult {
  runtime: string;
  /** Microseconds per operation, by operation. */
  us_per_op: Record<string, number>;
  [detail: string]: unknown;
}

function isMicroResult(value: unknown): value is MicroResult {
  if (typeof value !== "object" || value === null || !("us_per_op" in value) || !("runtime" in value)) return false;
  const ops = value.us_per_op;
  return (
    typeof value.runtime === "string" && typeof ops === "object" && ops !== null && Object.values(ops).every((us) => typeof us === "number")
  );
}

export async function runMicroBenchmark(root: string): Promise<MicroResult> {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "--import", "./bench/micro/cloudflare-modules.mjs", "bench/micro/server-construction.ts"],
    {
      cwd: root,
      timeout: 180_000,
      maxBuffer: 1024 * 1024,
    },
  );
  const result: unknown = JSON.parse(stdout.trim().split("\n").at(-1) ?? "null");
  if (!isMicroResult(result)) throw new Error(`unexpected micro-benchmark output: ${stdout.slice(0, 300)}`);
  return result;
}

/** The micro-benchmark imports hosting internals, which change more often than the HTTP surface: its failure is reported, not fatal. */
export async function tryMicroBenchmark(root: string): Promise<{ result: MicroResult } | { error: string }> {
  try {
    return { result: await runMicroBenchmark(root) };
  } catch (error) {
    return { error: String(error).slice(0, 2000) };
  }
}

export function printMicro(result: MicroResult): void {
  console.log(`\nMCP layer alone, in Node (${result.runtime}), µs per operation:`);
  for (const [operation, us] of Object.entries(result.us_per_op)) console.log(`  ${us.toFixed(0).padStart(7)} µs  ${operation}`);
}

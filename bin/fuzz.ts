/**
 * npm run fuzz: the property-based fuzzer (test/workerd/fuzz) for longer than `npm test` runs it.
 *
 *   npm run fuzz                         2,000 runs per property, a fresh seed (printed)
 *   FUZZ_RUNS=20000 npm run fuzz         more runs
 *   FUZZ_SEED=123456 npm run fuzz        replay a seed (a failure prints its seed and counterexample)
 *
 * It runs the same test file inside workerd, against real D1 and Durable Objects, through vitest.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./lib/wrangler";

const DEFAULT_RUNS = 2_000;

const runs = process.env["FUZZ_RUNS"] || String(DEFAULT_RUNS);
const seed = process.env["FUZZ_SEED"] || String(Math.floor(Math.random() * 2 ** 31));
if (!/^[1-9]\d*$/.test(runs)) throw new Error(`FUZZ_RUNS must be a positive whole number, not "${runs}"`);
if (!/^-?\d+$/.test(seed)) throw new Error(`FUZZ_SEED must be a whole number, not "${seed}"`);

console.log(`fuzz: ${runs} runs per property, seed ${seed} (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz)`);
const result = spawnSync(join(ROOT, "node_modules", ".bin", "vitest"), ["run", "--project", "workers", "test/workerd/fuzz"], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_SEED: seed },
});
console.log(`fuzz: ${result.status === 0 ? "no failure" : "FAILED"} after ${runs} runs per property, seed ${seed}`);
process.exit(result.status ?? 1);

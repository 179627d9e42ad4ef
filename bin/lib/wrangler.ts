/** Runs the project's own wrangler (node_modules/.bin), so scripts work without a global install. */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const WRANGLER = join(ROOT, "node_modules", ".bin", "wrangler");

export class CommandError extends Error {}

/** Runs wrangler and returns stdout; throws with wrangler's own error text when it fails. */
export function wrangler(args: readonly string[], options: { quiet?: boolean } = {}): string {
  const result: SpawnSyncReturns<string> = spawnSync(WRANGLER, args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new CommandError(`wrangler ${args.join(" ")} failed:\n${result.stderr || result.stdout}`);
  }
  if (!options.quiet) process.stderr.write(result.stdout);
  return result.stdout;
}

export function applyMigrations(target: "--local" | "--remote"): void {
  wrangler(["d1", "migrations", "apply", "DB", target], { quiet: true });
}

/** Executes SQL on the DB binding; `sql` must already be safely quoted. */
export function executeSql(sql: string, target: "--local" | "--remote"): string {
  return wrangler(["d1", "execute", "DB", target, "--json", "--command", sql], { quiet: true });
}

/** Single-quoted SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * Runs the `wrangler` on PATH — `npm run deploy` puts the project's own first, and a test puts a
 * recording stand-in there — falling back to node_modules/.bin. Output is captured (the deploy reads
 * URLs and JSON from it); wrangler runs non-interactively (CI=true), so it never prompts and never
 * writes provisioned resource ids back into the config files.
 */
import { spawnSync } from "node:child_process";
import { delimiter, join } from "node:path";

export class WranglerError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly output: string,
  ) {
    super(`wrangler ${args.join(" ")} failed:\n${output.trim()}`);
  }
}

export interface Wrangler {
  /** stdout of a command that succeeded; a WranglerError (with stdout and stderr) otherwise. */
  run(args: readonly string[], options?: { input?: string }): string;
}

export function projectWrangler(root: string): Wrangler {
  const path = [process.env["PATH"] ?? "", join(root, "node_modules", ".bin")].filter(Boolean).join(delimiter);
  return {
    run(args, options = {}) {
      const result = spawnSync("wrangler", args, {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, PATH: path, CI: "true", WRANGLER_SEND_METRICS: "false" },
        input: options.input,
        stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        maxBuffer: 64 * 1024 * 1024,
      });
      if (result.error) throw new WranglerError(args, result.error.message);
      if (result.status !== 0) throw new WranglerError(args, `${result.stdout}\n${result.stderr}`);
      return result.stdout;
    },
  };
}

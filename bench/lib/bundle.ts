/**
 * Builds Worker bundles for workerd, and measures the deployable bundle.
 *
 * The bench serves an esbuild bundle rather than wrangler's output so that it does not depend on
 * wrangler's module rules (its default rules turn any import whose specifier ends in `.sql` into
 * a Text module; the extra modules of a dry run are reported in `measureDeployBundle`). The esbuild
 * options mirror what wrangler uses for a nodejs_compat module Worker: ESM, the workerd/worker/browser
 * export conditions, `node:*` and `cloudflare:*` left to the runtime.
 */
import { execFile } from "node:child_process";
import { readdir, readFile, stat } from "node:fs/promises";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";

const run = promisify(execFile);

/** Bare Node built-in imports (`async_hooks`) become `node:` imports, which workerd's nodejs_compat serves. */
const nodeBuiltins: Plugin = {
  name: "node-builtins",
  setup(pluginBuild) {
    const bare = new Set(builtinModules.filter((name) => !name.startsWith("_")));
    pluginBuild.onResolve({ filter: /^[a-z_/]+$/ }, (args) =>
      bare.has(args.path) ? { path: `node:${args.path}`, external: true } : undefined,
    );
  },
};

/** Bundles one Worker entry into a single ES module file; returns its path. */
export async function bundleWorker(entry: string, outFile: string, plugins: readonly Plugin[] = []): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile: outFile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2024",
    mainFields: ["browser", "module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*", "cloudflare:*"],
    plugins: [...plugins, nodeBuiltins],
    logLevel: "error",
    legalComments: "none",
  });
  return outFile;
}

export interface DeployBundle {
  /** Every module wrangler would upload, with raw and gzip sizes. */
  modules: { name: string; bytes: number; gzipBytes: number }[];
  totalBytes: number;
  totalGzipBytes: number;
  /** Wrangler's own "Total Upload" line, kept verbatim for comparison. */
  wranglerSummary: string | undefined;
}

/** `wrangler deploy --dry-run --outdir`: the bundle that would be uploaded, nothing deployed. */
export async function measureDeployBundle(cwd: string, outDir: string): Promise<DeployBundle> {
  const { stdout } = await run("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outDir], {
    cwd,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 180_000,
  });
  const modules: DeployBundle["modules"] = [];
  for (const name of (await readdir(outDir)).sort()) {
    // The dry run also writes a README and source maps; neither is uploaded as a module.
    if (name === "README.md" || name.endsWith(".map")) continue;
    const path = join(outDir, name);
    if (!(await stat(path)).isFile()) continue;
    const contents = await readFile(path);
    modules.push({ name, bytes: contents.byteLength, gzipBytes: gzipSync(contents, { level: 9 }).byteLength });
  }
  return {
    modules,
    totalBytes: modules.reduce((sum, module) => sum + module.bytes, 0),
    totalGzipBytes: modules.reduce((sum, module) => sum + module.gzipBytes, 0),
    wranglerSummary: /Total Upload:[^\n]*/.exec(stdout)?.[0]?.trim(),
  };
}

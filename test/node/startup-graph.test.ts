/**
 * What a new isolate evaluates before it serves anything: workers/index.ts and every module it
 * imports statically. Libraries and schemas belong behind `import()` (workers/http/lazy.ts,
 * docs/decisions/0034-built-on-first-use.md); one static import of zod, an MCP SDK, drizzle or the
 * AI SDK on this path puts that library's whole module graph back into every cold start. And the
 * chat agent's libraries are not in the main Worker at all: they are the agent Worker's. Bundled
 * with esbuild as wrangler bundles the Worker; the import kinds come from esbuild's metafile.
 */
import { builtinModules } from "node:module";
import { resolve } from "node:path";
import { build, type Metafile, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** The only packages startup may evaluate: the router (the rest of the Worker is ours). */
const STARTUP_PACKAGES = ["hono"];

const nodeBuiltins: Plugin = {
  name: "node-builtins",
  setup(pluginBuild) {
    const bare = new Set(builtinModules);
    pluginBuild.onResolve({ filter: /^[a-z_/]+$/ }, (args) =>
      bare.has(args.path) ? { path: `node:${args.path}`, external: true } : undefined,
    );
  },
};

async function metafileOf(entry: string): Promise<Metafile> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["browser", "module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*", "cloudflare:*"],
    plugins: [nodeBuiltins],
    logLevel: "silent",
  });
  return result.metafile;
}

/** Every module reachable from `entry` through static imports, each with the module that imported it first. */
function staticClosure(metafile: Metafile, entry: string): Map<string, string | undefined> {
  const importedBy = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  for (let module = queue.shift(); module !== undefined; module = queue.shift()) {
    for (const imported of metafile.inputs[module]?.imports ?? []) {
      if (imported.kind !== "import-statement" || imported.external || importedBy.has(imported.path)) continue;
      importedBy.set(imported.path, module);
      queue.push(imported.path);
    }
  }
  return importedBy;
}

function packageOf(module: string): string | undefined {
  return /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module)?.[1];
}

/** "workers/index.ts → workers/app.ts → node_modules/zod/index.js": why a module is on the startup path. */
function chainTo(module: string, importedBy: Map<string, string | undefined>): string {
  const chain = [module];
  for (let from = importedBy.get(module); from !== undefined; from = importedBy.get(from)) chain.unshift(from);
  return chain.join(" → ");
}

describe("the Worker's startup path", () => {
  it(`imports no package statically but ${STARTUP_PACKAGES.join(", ")}`, async () => {
    const entry = "workers/index.ts";
    const importedBy = staticClosure(await metafileOf(entry), entry);
    const offending = new Map<string, string>();
    for (const module of importedBy.keys()) {
      const pkg = packageOf(module);
      if (pkg !== undefined && !STARTUP_PACKAGES.includes(pkg) && !offending.has(pkg)) offending.set(pkg, chainTo(module, importedBy));
    }
    expect([...offending.values()]).toEqual([]);
  });

  it("bundles zod's English messages only: no value import of the re-exported `z` object, which keeps every locale", async () => {
    // `import { z } from "zod"` makes the bundler keep the whole `z` namespace object, locales
    // included (399 KiB raw, 79 KiB gzip of the main Worker); `import * as z from "zod"` does not.
    const metafile = await metafileOf("workers/index.ts");
    const kept = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs).filter(
        ([module, use]) => /node_modules\/zod\/v4\/locales\//.test(module) && !/\/(en|index)\.js$/.test(module) && use.bytesInOutput > 0,
      ),
    );
    expect(kept.map(([module]) => module)).toEqual([]);
  });

  it("still reaches the libraries, behind import() (the measurement sees the real graph)", async () => {
    const entry = "workers/index.ts";
    const metafile = await metafileOf(entry);
    const bundled = new Set(Object.keys(metafile.inputs).map(packageOf));
    for (const pkg of ["zod", "@modelcontextprotocol/server", "drizzle-orm"]) expect(bundled).toContain(pkg);
  });
});

/** The chat agent's libraries and code, which live in its own Worker (workers/agent-worker/worker.ts). */
const AGENT_PACKAGES = ["ai", "@ai-sdk/openai-compatible", "@ai-sdk/provider", "@ai-sdk/provider-utils", "workers-ai-provider"];
const AGENT_MODULES =
  /^(durable-objects\/chat-agent\.do|workers\/agent-worker\/|workers\/agent\/(chat-session|chat-loop|mcp-tool-loader|tools|identity)|workers\/agent\/models\/)/;

describe("the chat agent is its own Worker", () => {
  it("the main Worker's bundle holds none of it, not even behind import()", async () => {
    const inputs = Object.keys((await metafileOf("workers/index.ts")).inputs);
    expect(inputs.filter((module) => AGENT_PACKAGES.includes(packageOf(module) ?? ""))).toEqual([]);
    expect(inputs.filter((module) => AGENT_MODULES.test(module))).toEqual([]);
  });

  it("the agent Worker's bundle holds it (the check above looks at the real names)", async () => {
    const inputs = Object.keys((await metafileOf("workers/agent-worker/worker.ts")).inputs);
    const packages = new Set(inputs.map(packageOf));
    for (const pkg of ["ai", "workers-ai-provider", "@ai-sdk/openai-compatible"]) expect(packages).toContain(pkg);
    expect(inputs).toContain("durable-objects/chat-agent.do.ts");
    expect(inputs).toContain("workers/agent/chat-session.ts");
  });
});

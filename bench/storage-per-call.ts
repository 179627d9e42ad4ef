/**
 * npx tsx bench/storage-per-call.ts [--calls 500] [--writes 500] [--users 5]
 *
 * Bytes of D1 one call adds (docs/scale.md), measured on the local D1 of a real `wrangler dev`
 * (fresh state in a temporary directory): the database's pages per table and index (SQLite's dbstat)
 * before and after
 *  - `--calls` gateway tool calls (POST /mcp, a built-in read-only tool, a 2026-07-28 client naming
 *    itself): one GATEWAY_CALL audit row each, written by the real queue consumer;
 *  - `--writes` task writes (add_task on /mcp/tasks, a typical task): the task, its full-text index
 *    entry, its outbox row and its audit row.
 * Each phase waits until the consumer has written every audit row, then reads the file read-only.
 * Calls are spread over `--users` users, each kept under the per-user tool-call limit.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { LOG_DIR, startLocalWorker } from "../bin/lib/local-worker";
import { prepareLocalDatabase, stopAllWorkers } from "../bin/lib/wrangler-dev";

type Sizes = Map<string, number>;

function databaseFile(persistTo: string): string {
  const dir = join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite");
  if (!file) throw new Error(`no local D1 database in ${dir}`);
  return join(dir, file);
}

function read<T>(file: string, query: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
}

/** Bytes of pages per table and index (including each page's unused space, as the file holds them). */
function sizes(file: string): Sizes {
  const rows = read(file, (db) => db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all());
  return new Map(rows.map((row) => [String(row["name"]), Number(row["bytes"])]));
}

function count(file: string, sql: string): number {
  return read(file, (db) => Number(db.prepare(sql).get()?.["n"] ?? 0));
}

function delta(before: Sizes, after: Sizes): Array<[string, number]> {
  return [...after]
    .map(([name, bytes]): [string, number] => [name, bytes - (before.get(name) ?? 0)])
    .filter(([, bytes]) => bytes !== 0)
    .sort((a, b) => b[1] - a[1]);
}

async function waitFor(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "storage-bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One tools/call as a 2026-07-28 client sends it; retried after the per-user limit's hint. */
async function callTool(origin: string, path: string, token: string, name: string, args: Record<string, unknown>): Promise<void> {
  for (;;) {
    const response = await fetch(`${origin}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": name,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, _meta: MODERN_META } }),
    });
    const text = await response.text();
    const limited = /"rate_limited"/.test(text) ? Number(/"retry_after_ms":(\d+)/.exec(text)?.[1] ?? 1000) : 0;
    if (limited > 0) {
      await new Promise((resolve) => setTimeout(resolve, limited));
      continue;
    }
    if (!response.ok || /"isError":true/.test(text)) throw new Error(`${name} on ${path} failed: ${response.status} ${text.slice(0, 300)}`);
    return;
  }
}

async function spread(tokens: readonly string[], total: number, call: (token: string, index: number) => Promise<void>): Promise<void> {
  await Promise.all(
    tokens.map(async (token, user) => {
      for (let index = user; index < total; index += tokens.length) await call(token, index);
    }),
  );
}

function printPhase(title: string, calls: number, changes: Array<[string, number]>): number {
  const total = changes.reduce((sum, [, bytes]) => sum + bytes, 0);
  console.log(`\n${title}: ${calls} calls, ${total} bytes, ${(total / calls).toFixed(0)} bytes per call`);
  for (const [name, bytes] of changes) {
    console.log(`  ${name.padEnd(32)} ${String(bytes).padStart(9)}  ${(bytes / calls).toFixed(0).padStart(6)} per call`);
  }
  return total / calls;
}

async function main(): Promise<void> {
  const option = (fallback: string) => ({ type: "string", default: fallback }) as const;
  const { values } = parseArgs({ options: { calls: option("500"), writes: option("500"), users: option("5") } });
  const [calls, writes, users] = [Number(values.calls), Number(values.writes), Number(values.users)];
  const persistTo = mkdtempSync(join(tmpdir(), "mcp-edge-storage-"));
  try {
    const logFile = join(LOG_DIR, "storage-per-call.log");
    const worker = await startLocalWorker({ user: "storage-0", label: "storage bench", persistTo, logFile });
    const tokens = [worker.token];
    for (let user = 1; user < users; user++) tokens.push(await prepareLocalDatabase(`storage-${user}`, "storage bench", { persistTo }));
    const file = databaseFile(persistTo);
    const audited = () => count(file, "SELECT count(*) AS n FROM audit_log");

    const start = sizes(file);
    await spread(tokens, calls, (token) => callTool(worker.origin, "/mcp", token, "list_tasks", { limit: 1 }));
    await waitFor(`${calls} audit rows`, () => audited() >= calls);
    const afterCalls = sizes(file);
    const perCall = printPhase("Gateway tool calls (POST /mcp)", calls, delta(start, afterCalls));

    await spread(tokens, writes, (token, index) =>
      callTool(worker.origin, "/mcp/tasks", token, "add_task", {
        title: `Call the supplier about order ${10_000 + index}`,
        description: "Ask for the revised delivery date, confirm the quantities and forward the answer to the team.",
        priority: "medium",
        tags: ["work", "orders"],
        due_date: "2027-03-15T09:00:00Z",
      }),
    );
    await waitFor(`${writes} more audit rows`, () => audited() >= calls + writes);
    await waitFor("every outbox row delivered", () => count(file, "SELECT count(*) AS n FROM outbox WHERE delivered_at IS NULL") === 0);
    const perWrite = printPhase("Task writes (add_task on /mcp/tasks)", writes, delta(afterCalls, sizes(file)));
    console.log(`\n${JSON.stringify({ bytes_per_gateway_call: Math.round(perCall), bytes_per_task_write: Math.round(perWrite) })}`);
    await worker.stop();
  } finally {
    await stopAllWorkers();
    rmSync(persistTo, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});

/**
 * `npm run capacity`: the measured operation budgets (bench/capacity/operation-budgets.ts) times a
 * mix of calls, against Cloudflare's limits — each resource's load and ceiling, the first ceiling
 * this mix meets and D1's days to 10 GB. The model and its assumptions: docs/scale.md.
 *
 *   npm run capacity -- --calls-per-second 10000 --mix list_tasks=0.4,add_task=0.1,gateway_upstream_call=0.5
 *   npm run capacity -- --mix-file mix.json --shards 16 --read-replication
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { experimental_readRawConfig } from "wrangler";
import { capacity, type CapacityInput, DEFAULT_INPUT } from "../bench/capacity/model";
import { CALL_BUDGETS, type CallKind } from "../bench/capacity/operation-budgets";

/**
 * The RAG gate objects per pipeline as shipped: RAG_GATE_SHARDS in wrangler.toml (decision 0067), so
 * the model's default is the deployed one; `--rag-gate-objects` models another.
 */
function shippedRagGateShards(): number {
  const { rawConfig } = experimental_readRawConfig({ config: join(import.meta.dirname, "..", "wrangler.toml") });
  const shards = Number(rawConfig.vars?.["RAG_GATE_SHARDS"]);
  return Number.isInteger(shards) && shards > 0 ? shards : DEFAULT_INPUT.ragGateObjects;
}

/** The mix docs/scale.md assumes when none is given. */
export const DEFAULT_MIX: Partial<Record<CallKind, number>> = {
  gateway_upstream_call: 0.35,
  gateway_builtin_call: 0.15,
  gateway_tools_list: 0.1,
  list_tasks: 0.15,
  tasks_tools_list: 0.05,
  add_task: 0.05,
  update_task: 0.03,
  complete_task: 0.02,
  rag_query: 0.05,
  rest_list_tasks: 0.05,
};

function parseMix(text: string): Partial<Record<CallKind, number>> {
  const mix: Partial<Record<CallKind, number>> = {};
  for (const part of text.split(",").filter(Boolean)) {
    const [kind, share] = part.split("=");
    if (!kind || !(kind in CALL_BUDGETS)) throw new Error(`--mix: unknown kind "${kind}"; known: ${Object.keys(CALL_BUDGETS).join(", ")}`);
    const value = Number(share);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--mix: the share of ${kind} must be a number ≥ 0, got "${share}"`);
    mix[kind as CallKind] = value; // checked: `kind in CALL_BUDGETS` above
  }
  return mix;
}

/** A mix file is a JSON object of shares, {"list_tasks": 0.4, …}: read as the --mix text. */
function mixFileText(path: string): string {
  const shares: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (typeof shares !== "object" || shares === null) throw new Error(`--mix-file ${path}: expected a JSON object of kind: share`);
  return Object.entries(shares)
    .map(([kind, share]) => `${kind}=${String(share)}`)
    .join(",");
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a number above 0, got "${text}"`);
  return value;
}

const number = (value: number) => (value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(2));

function main(): void {
  const { values } = parseArgs({
    options: {
      "calls-per-second": { type: "string" },
      mix: { type: "string" },
      "mix-file": { type: "string" },
      "warm-share": { type: "string" },
      "query-ms": { type: "string" },
      shards: { type: "string" },
      "read-replication": { type: "boolean" },
      replicas: { type: "string" },
      queues: { type: "string" },
      "rag-query-ms": { type: "string" },
      "rag-gate-objects": { type: "string" },
      "retention-days": { type: "string" },
      users: { type: "string" },
    },
  });
  const mixText = values.mix ?? (values["mix-file"] ? mixFileText(values["mix-file"]) : undefined);
  const mix = mixText === undefined ? DEFAULT_MIX : parseMix(mixText);
  const warmShare = values["warm-share"] === undefined ? DEFAULT_INPUT.warmShare : Number(values["warm-share"]);
  if (!(warmShare >= 0 && warmShare <= 1)) throw new Error(`--warm-share must be between 0 and 1, got "${values["warm-share"]}"`);
  const input: CapacityInput = {
    ...DEFAULT_INPUT,
    callsPerSecond: positive("calls-per-second", values["calls-per-second"], 10_000),
    mix,
    warmShare,
    queryMs: positive("query-ms", values["query-ms"], DEFAULT_INPUT.queryMs),
    shards: positive("shards", values.shards, DEFAULT_INPUT.shards),
    readReplication: values["read-replication"] ?? false,
    replicas: positive("replicas", values.replicas, DEFAULT_INPUT.replicas),
    queues: positive("queues", values.queues, DEFAULT_INPUT.queues),
    ragQueryMs: positive("rag-query-ms", values["rag-query-ms"], DEFAULT_INPUT.ragQueryMs),
    ragGateObjects: positive("rag-gate-objects", values["rag-gate-objects"], shippedRagGateShards()),
    retentionDays: positive("retention-days", values["retention-days"], DEFAULT_INPUT.retentionDays),
  };
  const users = positive("users", values.users, 1_000_000);
  const report = capacity(input);

  const each = (input.callsPerSecond / users).toFixed(4);
  console.log(`${number(input.callsPerSecond)} calls/s from ${number(users)} users (${each} calls/s each)`);
  console.log(
    `mix: ${Object.entries(mix)
      .map(([kind, share]) => `${kind}=${share}`)
      .join(",")}`,
  );
  const reads = input.readReplication ? `reads on ${input.replicas} replicas` : "reads on the primary";
  console.log(
    `assumed: ${input.queryMs} ms a D1 statement, ${input.shards} D1 shard(s), ${reads}, ${input.queues} queue(s), ` +
      `warm share ${input.warmShare}, ` +
      `RAG query ${input.ragQueryMs} ms in ${input.ragSlots} slots × ${input.ragGateObjects} gate object(s)`,
  );
  const c = report.perCall;
  console.log(
    `per call: ${c.d1_queries.toFixed(2)} D1 statements (${c.d1_writes.toFixed(2)} writes), ${c.d1_rows_read.toFixed(1)} rows read, ` +
      `${c.d1_rows_written.toFixed(1)} written, ${c.queue_messages.toFixed(2)} queue messages, ` +
      `${
        Object.entries(c.do_requests)
          .map(([ns, n]) => `${n.toFixed(2)} ${ns}`)
          .join(", ") || "0"
      } DO requests, ` +
      `${c.kv_reads.toFixed(2)} KV reads`,
  );
  console.log("");
  console.log(`${"resource".padEnd(32)}${"load".padStart(12)}${"ceiling".padStart(12)}  ${"used".padStart(8)}  unit`);
  for (const r of report.resources) {
    const used = `${((100 * r.load) / r.ceiling).toFixed(0)} %`;
    console.log(`${r.resource.padEnd(32)}${number(r.load).padStart(12)}${number(r.ceiling).padStart(12)}  ${used.padStart(8)}  ${r.unit}`);
  }
  console.log("");
  console.log(`first ceiling: ${report.firstCeiling.resource}, reached at ${number(report.maxCallsPerSecond)} calls/s of this mix`);
  const s = report.storage;
  const full = s.daysToFullPerShard < 1 ? `${(s.daysToFullPerShard * 24).toFixed(1)} hours` : `${s.daysToFullPerShard.toFixed(1)} days`;
  console.log(
    `D1 storage (one shard): ${(s.bytesPerDayPerShard / 1e9).toFixed(2)} GB a day; full in ${full} without retention; ` +
      `${input.retentionDays} days kept = ${(s.retainedBytesPerShard / 1e9).toFixed(1)} GB ` +
      `(${s.fitsWithRetention ? "fits" : "does not fit"} in 10 GB)`,
  );
  console.log("Workflows: not on any call path (n/a). KV reads: no published ceiling per namespace.");
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}

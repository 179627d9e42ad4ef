/**
 * npm run eval:scifact [-- --split test|train] [--pipelines rag_basic,rag_colbert]
 *
 * Measures every RAG pipeline on BEIR SciFact through the real MCP endpoint: starts a local Worker
 * (its own local D1 under .wrangler/eval), ingests ../shared/data/scifact/corpus.jsonl (or
 * $SCIFACT_DIR/corpus.jsonl, for a checkout that is not beside shared/, like a git worktree) with
 * rag_ingest (skipped when already there: unchanged documents are recognised by content hash),
 * then sends each query of the split to each pipeline once, sequentially, as an MCP client would.
 *
 * Each call asks top_k = 10 (nDCG@10 is computed on retrieved_documents) and ranking_depth = 100:
 * the diagnostic `ranking` field returns the pipeline's own document ranking to depth 100, from
 * which Recall@100 is computed (top_k itself is capped at 50). Latency is the client-side wall time
 * of those calls, MCP round trip included (of the answered attempt: a call refused by the per-user
 * rate limit is waited out and sent again, and the wait is not latency). Writes eval/results/scifact[-train].json and, for the
 * test split, the results table in docs/retrieval.md.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Client } from "@modelcontextprotocol/client";
import { type BeirQuery, readAll, readQrels } from "../bin/lib/beir";
import { ingestBeirFile } from "../bin/lib/beir-ingest";
import { LOG_DIR, startLocalWorker } from "../bin/lib/local-worker";
import { callToolWaitingOutLimits } from "../bin/lib/tool-call-waiting";
import { ROOT } from "../bin/lib/wrangler";
import { bearer, closeMcp, connectMcp } from "../workers/mcp-client/connect";
import { queryResult } from "../workers/rag/rag.schema";
import { ndcgAt, mean, percentile, recallAt } from "./lib/metrics";
import { type PipelineResult, writeResultsTable } from "./lib/report";

const DATA = process.env["SCIFACT_DIR"] || join(ROOT, "..", "shared", "data", "scifact");
const PIPELINES = ["rag_basic", "rag_basic_rerank", "rag_crag", "rag_graphrag", "rag_colbert", "rag_global_graphrag"];

async function runPipeline(
  client: Client,
  pipeline: string,
  queries: readonly BeirQuery[],
  qrels: ReturnType<typeof readQrels>,
  extra: Record<string, unknown>,
): Promise<PipelineResult> {
  const ndcg: number[] = [];
  const recall: number[] = [];
  const latency: number[] = [];
  for (const query of queries) {
    // The Worker limits each user's tool calls (wrangler.toml); the eval waits out a refusal as any client would.
    const { result, ms } = await callToolWaitingOutLimits(client, {
      name: pipeline,
      arguments: { ...extra, query: query.text, top_k: 10, ranking_depth: 100 },
    });
    latency.push(ms);
    if (result.isError) throw new Error(`${pipeline} failed on query ${query._id}: ${JSON.stringify(result.content)}`);
    const reply = queryResult.parse(result.structuredContent);
    const judged = qrels.get(query._id)!;
    ndcg.push(
      ndcgAt(
        reply.retrieved_documents.map((d) => d.doc_id),
        judged,
        10,
      ),
    );
    recall.push(
      recallAt(
        (reply.ranking ?? []).map((d) => d.doc_id),
        judged,
        100,
      ),
    );
  }
  const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;
  return {
    pipeline,
    ndcg_at_10: round(mean(ndcg)),
    recall_at_100: round(mean(recall)),
    p50_ms: round(percentile(latency, 50), 1),
    p95_ms: round(percentile(latency, 95), 1),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      split: { type: "string", default: "test" },
      pipelines: { type: "string", default: PIPELINES.join(",") },
      // Extra tool arguments for every call, e.g. '{"graph_weight":0.2}' — for tuning on train.
      args: { type: "string", default: "{}" },
    },
  });
  const split = values.split!;
  if (split !== "test" && split !== "train") throw new Error("--split must be test or train");
  const pipelines = values.pipelines!.split(",").map((p) => p.trim());
  const extra = JSON.parse(values.args!) as Record<string, unknown>;
  const qrels = readQrels(join(DATA, "qrels", `${split}.tsv`));
  const queries = (await readAll<BeirQuery>(join(DATA, "queries.jsonl"))).filter((q) => qrels.has(q._id));

  const worker = await startLocalWorker({
    user: "eval",
    label: "npm run eval:scifact",
    persistTo: join(".wrangler", "eval"),
    logFile: join(LOG_DIR, "eval.log"),
  });
  try {
    const connection = await connectMcp(
      { url: `${worker.origin}/mcp/rag`, headers: bearer(worker.token) },
      { clientName: "mcp-edge-cli", timeoutMs: 30_000, negotiation: "auto" },
    );
    const client = connection.client;
    const started = Date.now();
    const ingest = await ingestBeirFile(client, join(DATA, "corpus.jsonl"), (s) =>
      process.stderr.write(`\ringesting: ${s.sent} documents…`),
    );
    process.stderr.write("\n");
    console.log(
      `corpus: ${ingest.documentCount} documents, ${ingest.chunkCount} chunks (${ingest.created + ingest.replaced} written, ${ingest.unchanged} unchanged, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    console.log(`${queries.length} ${split} queries\n`);
    const results: PipelineResult[] = [];
    for (const pipeline of pipelines) {
      const result = await runPipeline(client, pipeline, queries, qrels, extra);
      results.push(result);
      console.log(
        `${pipeline.padEnd(20)} nDCG@10 ${result.ndcg_at_10.toFixed(4)}  R@100 ${result.recall_at_100.toFixed(4)}  p50 ${result.p50_ms} ms  p95 ${result.p95_ms} ms`,
      );
    }
    await closeMcp(connection);
    // Tuning runs (extra arguments, a subset of pipelines) must not overwrite the reported results.
    const official = Object.keys(extra).length === 0 && pipelines.length === PIPELINES.length;
    const out = join(ROOT, "eval", "results", `scifact${split === "train" ? "-train" : ""}${official ? "" : "-tuning"}.json`);
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nwrote ${out}`);
    if (split === "test" && official) {
      const doc = join(ROOT, "docs", "retrieval.md");
      writeFileSync(
        doc,
        writeResultsTable(readFileSync(doc, "utf8"), results, { documents: ingest.documentCount, chunks: ingest.chunkCount }),
      );
      console.log(`updated ${doc}`);
    }
  } finally {
    await worker.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});

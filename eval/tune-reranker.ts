/**
 * npx tsx eval/tune-reranker.ts — fits the local reranker's feature weights on SciFact **train**.
 *
 * Reproduces the rerank stage offline, fast: the corpus goes into an in-memory SQLite FTS5 table
 * with the same tokenizer and bm25 column weights as D1 (node:sqlite); as in rag_basic_rerank, the
 * candidates are the top 100 of the query fused (RRF) with the top 100 of its feedback-expanded
 * form (the fused score is the first-stage score), and the features come from the Worker's own
 * `featureRows`. (The Worker's first stage also fuses vectors; this leaves them out for speed.) Coordinate ascent on mean nDCG@10 then fits the weights, which
 * are pasted into DEFAULT_WEIGHTS (workers/rag/models/lexical-reranker.ts). Test is never read.
 * An optional JSON argument overrides feature settings, e.g. '{"k1":0.9,"b":0.4}' (FeatureParams).
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type BeirDocument, type BeirQuery, readAll, readQrels } from "../bin/lib/beir";
import { ROOT } from "../bin/lib/wrangler";
import {
  DEFAULT_PARAMS,
  DEFAULT_WEIGHTS,
  FEATURES,
  type FeatureParams,
  featureRows,
  linearScores,
} from "../workers/rag/models/lexical-reranker";
import type { CorpusStats } from "../workers/rag/models/types";
import { TITLE_WEIGHT } from "../workers/rag/rag.repo";
import { expandQuery, FEEDBACK_WEIGHT } from "../workers/rag/pipelines/basic-rerank";
import { toMatchExpression } from "../workers/rag/retrieval/fts";
import { reciprocalRankFusion, sortedByScore } from "../workers/rag/retrieval/fusion";
import { matchWords, terms } from "../workers/rag/text/tokenize";
import { mean, ndcgAt } from "./lib/metrics";

const DATA = join(ROOT, "..", "shared", "data", "scifact");
const STEPS = [0.4, 0.2, 0.1, 0.05];
const params: FeatureParams = { ...DEFAULT_PARAMS, ...(JSON.parse(process.argv[2] ?? "{}") as Partial<FeatureParams>) };

const corpus = await readAll<BeirDocument>(join(DATA, "corpus.jsonl"));
const queries = new Map((await readAll<BeirQuery>(join(DATA, "queries.jsonl"))).map((q) => [q._id, q.text]));
const train = readQrels(join(DATA, "qrels", "train.tsv"));

const db = new DatabaseSync(":memory:");
db.exec("CREATE VIRTUAL TABLE f USING fts5(title, content, tokenize='porter unicode61 remove_diacritics 2')");
const insert = db.prepare("INSERT INTO f (rowid, title, content) VALUES (?, ?, ?)");
const df = new Map<string, number>();
let totalLength = 0;
corpus.forEach((doc, i) => {
  insert.run(i + 1, doc.title ?? "", doc.text);
  const t = terms(`${doc.title ?? ""} ${doc.text}`);
  totalLength += t.length;
  for (const term of new Set(t)) df.set(term, (df.get(term) ?? 0) + 1);
});
const stats: CorpusStats = { chunkCount: corpus.length, averageLength: totalLength / corpus.length, documentFrequency: df };
const search = db.prepare(
  `SELECT rowid, -bm25(f, ${TITLE_WEIGHT}, 1.0) AS score FROM f WHERE f MATCH ? ORDER BY bm25(f, ${TITLE_WEIGHT}, 1.0) LIMIT 100`,
);

const prepared = [...train].map(([queryId, judged]) => {
  const text = queries.get(queryId)!;
  const lexical = (q: string) =>
    (search.all(toMatchExpression(matchWords(q))!) as { rowid: number; score: number }[]).map((r) => ({ id: r.rowid, score: r.score }));
  const first = lexical(text);
  const expanded = expandQuery(
    text,
    first.slice(0, 3).map((r) => ({ title: corpus[r.id - 1]!.title ?? "", content: corpus[r.id - 1]!.text })),
    stats,
  );
  const fused = reciprocalRankFusion([
    { items: first, weight: 1 },
    { items: lexical(expanded), weight: FEEDBACK_WEIGHT },
  ]);
  const rows = sortedByScore(fused)
    .slice(0, 100)
    .map((f) => ({ rowid: f.id, score: f.score }));
  const docs = rows.map((r) => corpus[r.rowid - 1]!);
  const features = featureRows(
    text,
    docs.map((d, i) => ({ title: d.title ?? "", content: d.text, retrievalScore: rows[i]!.score })),
    stats,
    undefined,
    params,
  );
  return { ids: docs.map((d) => d._id), features, judged };
});

function objective(weights: readonly number[]): number {
  return mean(
    prepared.map(({ ids, features, judged }) => {
      const scores = linearScores(features, weights);
      const ranking = ids
        .map((id, i) => ({ id, s: scores[i]! }))
        .sort((a, b) => b.s - a.s)
        .map((x) => x.id);
      return ndcgAt(ranking, judged, 10);
    }),
  );
}

let weights = [...DEFAULT_WEIGHTS];
let best = objective(weights);
console.log(`params ${JSON.stringify(params)}`);
console.log(`start ${best.toFixed(4)} (first stage alone: ${objective(FEATURES.map((f) => (f === "retrieval" ? 1 : 0))).toFixed(4)})`);
for (let round = 0; round < 4; round++) {
  for (let j = 0; j < weights.length; j++) {
    for (const step of STEPS.flatMap((s) => [s, -s])) {
      const trial = [...weights];
      trial[j] = Math.round((trial[j]! + step) * 100) / 100;
      const score = objective(trial);
      if (score > best + 1e-5) [best, weights] = [score, trial];
    }
  }
  console.log(`round ${round + 1}: ${best.toFixed(4)} [${weights.join(", ")}]`);
}
console.log(`\nDEFAULT_WEIGHTS = [${weights.join(", ")}] // ${FEATURES.join(", ")}`);

/** The RAG query log in D1: one row per query, pruned past the retention period as rows are added. */
import { lt, sql } from "drizzle-orm";
import { ragQueryLog } from "../../d1/schema";
import { batch, type Db, type Row } from "../lib/db";

export type QueryLogEntry = typeof ragQueryLog.$inferInsert;

export async function appendQueryLog(db: Db, entry: QueryLogEntry, retainSince: string): Promise<void> {
  await batch(db, [
    db.insert(ragQueryLog).values(entry).onConflictDoNothing(),
    db.delete(ragQueryLog).where(lt(ragQueryLog.startedAt, retainSince)),
  ]);
}

export interface PipelineWindowStats {
  pipeline: string;
  queries: number;
  errors: number;
  lastSuccess: string | null;
  lastError: string | null;
  /** Over the pipeline's answered queries in the window; 0 when it answered none. */
  p50: number;
  p95: number;
}

export interface WindowStats {
  pipelines: PipelineWindowStats[];
  /** Last successful query per pipeline over the retained log. */
  lastSuccess: ReadonlyMap<string, string>;
  total: number;
  errors: number;
  p50: number;
  p95: number;
}

/** Queries and failed queries of one pipeline in the window, of all users: what the status words are made of. */
export interface PipelineOutcomes {
  pipeline: string;
  queries: number;
  errors: number;
}

export interface HealthStats {
  everyone: PipelineOutcomes[];
  /** The asking user's figures; absent for an anonymous caller. */
  mine?: WindowStats;
}

const FAILED = sql`outcome IN ('error', 'timeout')`;

/**
 * Since `since`: every user's per-pipeline outcomes (for the status words), and — for a user — that
 * user's per-pipeline counts and p50/p95, and p50/p95 of total_ms over all their answered queries,
 * in one batch. Percentiles are nearest-rank (the ceil(n·p/100)-th smallest), the same rule for both.
 * Refused (`busy`) queries count as traffic but not as errors: the gate shedding load is not a fault.
 */
export async function healthStats(db: Db, since: string, userId?: number): Promise<HealthStats> {
  const outcomes = sql`SELECT pipeline, count(*) AS queries, coalesce(sum(${FAILED}), 0) AS errors
    FROM rag_query_log WHERE started_at >= ${since} GROUP BY pipeline`;
  const toOutcomes = (rows: Row[]) =>
    rows.map((r) => ({ pipeline: String(r["pipeline"]), queries: Number(r["queries"]), errors: Number(r["errors"]) }));
  if (userId === undefined) return { everyone: toOutcomes((await batch(db, [outcomes]))[0]!) };

  const answered = sql`FROM rag_query_log WHERE user_id = ${userId} AND started_at >= ${since} AND outcome != 'busy'`;
  const [everyone, perPipeline, pipelinePercentiles, percentiles, successes] = await batch(db, [
    outcomes,
    sql`SELECT pipeline, count(*) AS queries, coalesce(sum(${FAILED}), 0) AS errors,
        max(CASE WHEN ${FAILED} THEN started_at END) AS last_error
      FROM rag_query_log WHERE user_id = ${userId} AND started_at >= ${since} GROUP BY pipeline`,
    sql`SELECT pipeline,
        max(CASE WHEN rank = max(1, (n * 50 + 99) / 100) THEN total_ms END) AS p50,
        max(CASE WHEN rank = max(1, (n * 95 + 99) / 100) THEN total_ms END) AS p95
      FROM (SELECT pipeline, total_ms, row_number() OVER (PARTITION BY pipeline ORDER BY total_ms) AS rank,
                   count(*) OVER (PARTITION BY pipeline) AS n
            ${answered})
      GROUP BY pipeline`,
    sql`SELECT
        (SELECT total_ms ${answered} ORDER BY total_ms LIMIT 1 OFFSET (SELECT max(0, (count(*) * 50 + 99) / 100 - 1) ${answered})) AS p50,
        (SELECT total_ms ${answered} ORDER BY total_ms LIMIT 1 OFFSET (SELECT max(0, (count(*) * 95 + 99) / 100 - 1) ${answered})) AS p95`,
    // Last success over the whole retained log, not just the window: an idle pipeline still shows it.
    sql`SELECT pipeline, max(started_at) AS last_success FROM rag_query_log WHERE user_id = ${userId} AND outcome = 'ok' GROUP BY pipeline`,
  ]);
  const lastSuccess = new Map(successes!.map((r: Row) => [String(r["pipeline"]), String(r["last_success"])]));
  const latency = new Map(
    pipelinePercentiles!.map((r: Row) => [String(r["pipeline"]), { p50: Number(r["p50"] ?? 0), p95: Number(r["p95"] ?? 0) }]),
  );
  const pipelines = perPipeline!.map((r: Row) => ({
    pipeline: String(r["pipeline"]),
    queries: Number(r["queries"]),
    errors: Number(r["errors"]),
    lastSuccess: lastSuccess.get(String(r["pipeline"])) ?? null,
    lastError: (r["last_error"] as string | null) ?? null,
    p50: latency.get(String(r["pipeline"]))?.p50 ?? 0,
    p95: latency.get(String(r["pipeline"]))?.p95 ?? 0,
  }));
  const row = percentiles![0] ?? {};
  const mine: WindowStats = {
    pipelines,
    lastSuccess,
    total: pipelines.reduce((n, p) => n + p.queries, 0),
    errors: pipelines.reduce((n, p) => n + p.errors, 0),
    p50: Number(row["p50"] ?? 0),
    p95: Number(row["p95"] ?? 0),
  };
  return { everyone: toOutcomes(everyone!), mine };
}

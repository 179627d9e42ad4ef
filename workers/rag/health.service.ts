/**
 * RAG health from the query log of the last hour: each pipeline's status, last success and error
 * rate and p50/p95 latency; D1 reachability; overall p50/p95 latency, error rate and queries per minute. The rules live in
 * `computeRagHealth`, a pure function, so they are tested on their own.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../lib/db";
import { type WindowStats, windowStats } from "./query-log.repo";
import { PIPELINES, type PipelineHealth, type RagHealth } from "./rag.schema";

export const HEALTH_WINDOW_MS = 60 * 60 * 1000;
/** A pipeline whose error rate reaches this is failing… */
export const FAILING_ERROR_RATE = 0.5;
/** …and one at or above this (but below failing) is degraded. */
export const DEGRADED_ERROR_RATE = 0.05;

export interface D1Probe {
  connected: boolean;
  response_time_ms: number;
  error?: string;
}

function pipelineStatus(queries: number, errorRate: number): PipelineHealth["status"] {
  if (queries === 0) return "healthy";
  if (errorRate >= FAILING_ERROR_RATE) return "failing";
  return errorRate >= DEGRADED_ERROR_RATE ? "degraded" : "healthy";
}

/**
 * unavailable: D1 unreachable, or every pipeline failing; healthy: every pipeline healthy;
 * degraded otherwise. A pipeline with no queries in the window is healthy (idle, not broken).
 */
export function computeRagHealth(d1: D1Probe, stats: WindowStats | undefined, now: Date): RagHealth {
  const byName = new Map(stats?.pipelines.map((p) => [p.pipeline, p]) ?? []);
  const pipelines: PipelineHealth[] = PIPELINES.map((pipeline) => {
    const s = byName.get(pipeline);
    const queries = s?.queries ?? 0;
    const errorRate = queries > 0 ? (s?.errors ?? 0) / queries : 0;
    return {
      pipeline,
      status: pipelineStatus(queries, errorRate),
      queries_last_hour: queries,
      error_rate: round(errorRate, 4),
      last_success: stats?.lastSuccess.get(pipeline) ?? null,
      last_error: s?.lastError ?? null,
      p50_ms: s?.p50 ?? 0,
      p95_ms: s?.p95 ?? 0,
    };
  });
  const allFailing = pipelines.every((p) => p.status === "failing");
  const allHealthy = pipelines.every((p) => p.status === "healthy");
  const status = !d1.connected || allFailing ? "unavailable" : allHealthy ? "healthy" : "degraded";
  const total = stats?.total ?? 0;
  return {
    status,
    pipelines,
    d1,
    last_hour: {
      queries: total,
      queries_per_minute: round(total / (HEALTH_WINDOW_MS / 60_000), 3),
      error_rate: total > 0 ? round((stats?.errors ?? 0) / total, 4) : 0,
      p50_ms: stats?.p50 ?? 0,
      p95_ms: stats?.p95 ?? 0,
    },
    checked_at: now.toISOString(),
  };
}

export async function checkRagHealth(db: Db, now = new Date()): Promise<RagHealth> {
  const started = performance.now();
  let d1: D1Probe;
  let stats: WindowStats | undefined;
  try {
    await db.run(sql`SELECT 1`);
    d1 = { connected: true, response_time_ms: round(performance.now() - started, 2) };
    stats = await windowStats(db, new Date(now.getTime() - HEALTH_WINDOW_MS).toISOString());
  } catch (error) {
    d1 = { connected: false, response_time_ms: round(performance.now() - started, 2), error: String(error).slice(0, 200) };
  }
  return computeRagHealth(d1, stats, now);
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * RAG health from the query log of the last hour. Two audiences:
 * - a signed-in user (rag_health, /api/rag/health, /health with a token) sees the status words of
 *   the server and each pipeline, and their own figures only: counts, error rates, p50/p95, last
 *   success and last error of their own queries;
 * - anyone (/health without a token) sees the status words only.
 * The status words are computed over every user's queries — that is what "is this pipeline
 * working" means — but they carry no count, latency or time of anyone's activity. The rules live
 * in pure functions (`ragStatusOf`, `computeRagHealth`), tested on their own.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../lib/db";
import { healthStats, type HealthStats, type PipelineOutcomes, type WindowStats } from "./query-log.repo";
import { PIPELINES, type PipelineHealth, type RagHealth, type RagStatus } from "./rag.schema";

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
export function ragStatusOf(d1: D1Probe, everyone: readonly PipelineOutcomes[], now: Date): RagStatus {
  const byName = new Map(everyone.map((p) => [p.pipeline, p]));
  const pipelines = PIPELINES.map((pipeline) => {
    const o = byName.get(pipeline);
    const queries = o?.queries ?? 0;
    return { pipeline, status: pipelineStatus(queries, queries > 0 ? (o?.errors ?? 0) / queries : 0) };
  });
  const allFailing = pipelines.every((p) => p.status === "failing");
  const allHealthy = pipelines.every((p) => p.status === "healthy");
  const status = !d1.connected || allFailing ? "unavailable" : allHealthy ? "healthy" : "degraded";
  return { status, pipelines, d1, checked_at: now.toISOString() };
}

/** The status words of everyone's queries, with `mine`'s figures. */
export function computeRagHealth(d1: D1Probe, everyone: readonly PipelineOutcomes[], mine: WindowStats | undefined, now: Date): RagHealth {
  const status = ragStatusOf(d1, everyone, now);
  const byName = new Map(mine?.pipelines.map((p) => [p.pipeline, p]) ?? []);
  const pipelines: PipelineHealth[] = status.pipelines.map(({ pipeline, status }) => {
    const s = byName.get(pipeline);
    const queries = s?.queries ?? 0;
    return {
      pipeline,
      status,
      queries_last_hour: queries,
      error_rate: round(queries > 0 ? (s?.errors ?? 0) / queries : 0, 4),
      last_success: mine?.lastSuccess.get(pipeline) ?? null,
      last_error: s?.lastError ?? null,
      p50_ms: s?.p50 ?? 0,
      p95_ms: s?.p95 ?? 0,
    };
  });
  const total = mine?.total ?? 0;
  return {
    status: status.status,
    pipelines,
    d1,
    last_hour: {
      queries: total,
      queries_per_minute: round(total / (HEALTH_WINDOW_MS / 60_000), 3),
      error_rate: total > 0 ? round((mine?.errors ?? 0) / total, 4) : 0,
      p50_ms: mine?.p50 ?? 0,
      p95_ms: mine?.p95 ?? 0,
    },
    checked_at: status.checked_at,
  };
}

async function probe(db: Db, userId: number | undefined, now: Date): Promise<{ d1: D1Probe; stats: HealthStats }> {
  const started = performance.now();
  try {
    await db.run(sql`SELECT 1`);
    const d1 = { connected: true, response_time_ms: round(performance.now() - started, 2) };
    return { d1, stats: await healthStats(db, new Date(now.getTime() - HEALTH_WINDOW_MS).toISOString(), userId) };
  } catch (error) {
    const d1 = { connected: false, response_time_ms: round(performance.now() - started, 2), error: String(error).slice(0, 200) };
    return { d1, stats: { everyone: [] } };
  }
}

/** A user's view: the status words and their own figures. */
export async function checkRagHealth(db: Db, userId: number, now = new Date()): Promise<RagHealth> {
  const { d1, stats } = await probe(db, userId, now);
  return computeRagHealth(d1, stats.everyone, stats.mine, now);
}

/** Anyone's view: the status words only. */
export async function checkRagStatus(db: Db, now = new Date()): Promise<RagStatus> {
  const { d1, stats } = await probe(db, undefined, now);
  return ragStatusOf(d1, stats.everyone, now);
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

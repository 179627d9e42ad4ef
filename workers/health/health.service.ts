/**
 * GET /health: the Worker's own dependencies, for anyone, as status words only — D1 reachable, the
 * outbox delivering, the RAG server and its pipelines — never a count, latency or time of anyone's
 * activity (docs/security.md, What health shows to whom). With a valid token the caller's own
 * figures are added: their RAG queries, their undelivered events and their gateway sources.
 * Sources' states do not change `status`: an upstream's trouble is not the Worker's.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../lib/db";
import { log } from "../lib/log";
import { outboxStatus } from "../events/outbox.repo";
import type { HealthCounts } from "../gateway/catalog/source-health.rules";
import type { SourceHealthService } from "../gateway/catalog/source-health.service";
import type { SourceHealth } from "../gateway/sources/sources.schema";
import { checkRagHealth, checkRagStatus } from "../rag/health.service";
import type { RagHealth, RagStatus } from "../rag/rag.schema";

export const VERSION = "0.1.0";

interface BaseReport {
  /** unavailable when D1 is unreachable; otherwise the RAG server's status (healthy or degraded). */
  status: "healthy" | "degraded" | "unavailable";
  version: string;
  d1: { connected: boolean; latency_ms: number; error?: string };
  checked_at: string;
}

/** Anyone's view. */
export interface PublicHealthReport extends BaseReport {
  /** null when D1 cannot be read. */
  outbox: { status: "ok" | "delayed" } | null;
  rag: RagStatus;
}

/** A signed-in caller's view: the same statuses, with their own figures. */
export interface CallerHealthReport extends BaseReport {
  /** `backlog`: the caller's own events not yet confirmed delivered. */
  outbox: { status: "ok" | "delayed"; backlog: number } | null;
  rag: RagHealth;
  /** The caller's sources and their counts by state; null when they cannot be read. */
  sources: (HealthCounts & { mine: SourceHealth[] }) | null;
}

export type HealthReport = PublicHealthReport | CallerHealthReport;

export interface Caller {
  userId: number;
  sources: SourceHealthService;
}

async function probeD1(db: Db): Promise<BaseReport["d1"]> {
  const started = performance.now();
  try {
    await db.run(sql`SELECT 1`);
    return { connected: true, latency_ms: round(performance.now() - started) };
  } catch (error) {
    return { connected: false, latency_ms: round(performance.now() - started), error: String(error).slice(0, 200) };
  }
}

async function callerSources(caller: Caller): Promise<CallerHealthReport["sources"]> {
  try {
    return await caller.sources.summary(caller.userId);
  } catch (error) {
    log.warn("health: gateway sources unavailable", { error: String(error) });
    return null;
  }
}

export async function checkHealth(db: Db): Promise<PublicHealthReport>;
export async function checkHealth(db: Db, caller: Caller): Promise<CallerHealthReport>;
export async function checkHealth(db: Db, caller?: Caller): Promise<HealthReport> {
  const d1 = await probeD1(db);
  const outbox = d1.connected ? outboxStatus(db, caller?.userId).catch(() => null) : Promise.resolve(null);
  const base = { version: VERSION, d1, checked_at: new Date().toISOString() };
  if (caller === undefined) {
    const [rag, delivery] = await Promise.all([checkRagStatus(db), outbox]);
    return { ...base, status: d1.connected ? rag.status : "unavailable", outbox: delivery && { status: delivery.status }, rag };
  }
  const [rag, delivery, sources] = await Promise.all([
    checkRagHealth(db, caller.userId),
    outbox,
    d1.connected ? callerSources(caller) : Promise.resolve(null),
  ]);
  return {
    ...base,
    status: d1.connected ? rag.status : "unavailable",
    outbox: delivery && { status: delivery.status, backlog: delivery.backlog ?? 0 },
    rag,
    sources,
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

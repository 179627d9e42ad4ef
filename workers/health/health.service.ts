/**
 * Health of the Worker's own dependencies, for GET /health (public, no token), plus the gateway
 * sources: counts by state for everyone; with a valid token, that user's sources in full.
 * Sources' states do not change `status`: an upstream's trouble is not the Worker's.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../lib/db";
import { log } from "../lib/log";
import { outboxBacklog } from "../events/outbox.repo";
import type { HealthCounts } from "../gateway/health";
import type { SourceService } from "../gateway/sources.service";
import type { SourceHealth } from "../gateway/sources.schema";
import { checkRagHealth } from "../rag/health.service";
import type { RagHealth } from "../rag/rag.schema";

export const VERSION = "0.1.0";

export interface HealthReport {
  /** unavailable when D1 is unreachable; otherwise the RAG server's status (healthy or degraded). */
  status: "healthy" | "degraded" | "unavailable";
  version: string;
  d1: { connected: boolean; latency_ms: number; error?: string };
  outbox: { backlog: number | null };
  rag: RagHealth;
  /** null when D1 cannot be read. `mine`: the caller's sources, present only with a valid token. */
  sources: (HealthCounts & { mine?: SourceHealth[] }) | null;
  checked_at: string;
}

/** The public counts look at most this many sources (one Durable Object status call each). */
export const HEALTH_SOURCE_LIMIT = 200;

export interface SourcesProbe {
  service: SourceService;
  userId?: number | undefined;
}

/**
 * The public counts cost one Durable Object call per source, and /health needs no token: they are
 * computed at most once per COUNTS_TTL_MS per isolate, so unauthenticated traffic cannot fan out.
 */
const COUNTS_TTL_MS = 15_000;
// The value, never a pending promise: a promise must not be shared across requests in workerd.
let cachedCounts: { at: number; counts: HealthCounts } | undefined;

async function publicCounts(service: SourceService): Promise<HealthCounts> {
  const now = Date.now();
  if (cachedCounts && now - cachedCounts.at <= COUNTS_TTL_MS) return cachedCounts.counts;
  const counts = await service.health.counts(HEALTH_SOURCE_LIMIT);
  cachedCounts = { at: now, counts };
  return counts;
}

async function sourcesHealth(probe: SourcesProbe): Promise<HealthReport["sources"]> {
  try {
    const counts = await publicCounts(probe.service);
    if (probe.userId === undefined) return counts;
    return { ...counts, mine: (await probe.service.health.list(probe.userId)).sources };
  } catch (error) {
    log.warn("health: gateway sources unavailable", { error: String(error) });
    return null;
  }
}

export async function checkHealth(db: Db, sources?: SourcesProbe): Promise<HealthReport> {
  const started = performance.now();
  let d1: HealthReport["d1"];
  let backlog: number | null = null;
  try {
    await db.run(sql`SELECT 1`);
    d1 = { connected: true, latency_ms: round(performance.now() - started) };
    backlog = await outboxBacklog(db);
  } catch (error) {
    d1 = { connected: false, latency_ms: round(performance.now() - started), error: String(error).slice(0, 200) };
  }
  const [rag, gateway] = await Promise.all([checkRagHealth(db), d1.connected && sources ? sourcesHealth(sources) : null]);
  return {
    status: d1.connected ? rag.status : "unavailable",
    version: VERSION,
    d1,
    outbox: { backlog },
    rag,
    sources: gateway,
    checked_at: new Date().toISOString(),
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

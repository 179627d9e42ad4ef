/** Health of the Worker's own dependencies, for GET /health (public, no token). */
import { sql } from "drizzle-orm";
import type { Db } from "../lib/db";
import { outboxBacklog } from "../events/outbox.relay";
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
  checked_at: string;
}

export async function checkHealth(db: Db): Promise<HealthReport> {
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
  const rag = await checkRagHealth(db);
  return {
    status: d1.connected ? rag.status : "unavailable",
    version: VERSION,
    d1,
    outbox: { backlog },
    rag,
    checked_at: new Date().toISOString(),
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/**
 * add_task sends one event per request to the EVENTS queue, and the queue consumer (same workerd
 * process) writes it to audit_log afterwards. Waiting for the outbox to drain after add_task keeps
 * that deferred work from landing in the next cell's measurement, and lets the CPU phase charge it
 * to add_task.
 */
import type { ServedWorker } from "./workerd";

export interface Drain {
  drained: boolean;
  pending: number;
  waitedMs: number;
}

const POLL_MS = 250;

export async function waitForOutboxDrain(worker: ServedWorker, timeoutMs: number): Promise<Drain> {
  const d1 = await worker.miniflare.getD1Database("DB");
  const started = Date.now();
  let pending = Number.NaN;
  for (let attempt = 0; attempt * POLL_MS <= timeoutMs; attempt++) {
    const row = await d1.prepare("SELECT count(*) AS pending FROM outbox WHERE delivered_at IS NULL").first<{ pending: number }>();
    pending = row?.pending ?? 0;
    if (pending === 0) return { drained: true, pending, waitedMs: Date.now() - started };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { drained: false, pending, waitedMs: Date.now() - started };
}

/**
 * When a source is discovered again (decision 0067): each source's GatewaySource object holds an
 * alarm at this time, set after every discovery from its outcome. Pure, so the object, the
 * discovery service and the cron's safety net agree on it.
 */
import { log } from "../../lib/log";

export const DEFAULT_REDISCOVERY_MINUTES = 15;
/**
 * Never sooner than this after the last attempt, whatever the upstream's cache hint says: an
 * upstream that hints 0 s would otherwise make its object rediscover in a loop. The minute the cron
 * used to give is kept.
 */
export const MIN_REDISCOVERY_GAP_MS = 60_000;
/** A failing source is retried at the interval, then at twice as long after each further failure, up to this. */
export const MAX_REDISCOVERY_BACKOFF_MS = 24 * 3_600_000;

/** The interval from the var: a positive number of minutes (fractions allowed), else the default. */
export function rediscoveryIntervalMs(value: string | undefined): number {
  const minutes = Number(value);
  if (value === undefined || value.trim() === "" || !Number.isFinite(minutes) || minutes <= 0) {
    if (value !== undefined && value.trim() !== "") {
      log.warn("GATEWAY_REDISCOVERY_MINUTES is not a positive number; using the default", { value });
    }
    return DEFAULT_REDISCOVERY_MINUTES * 60_000;
  }
  return Math.round(minutes * 60_000);
}

export interface RediscoveryTiming {
  /** Failed discoveries in a row, the one just ended included; 0 after a success. */
  failures: number;
  /** The upstream's cache hint from the last successful listing (ISO), if any. */
  inventoryStaleAt: string | null;
  intervalMs: number;
  now: number;
}

/** When to discover the source again (epoch ms). */
export function nextRediscoveryAt({ failures, inventoryStaleAt, intervalMs, now }: RediscoveryTiming): number {
  if (failures > 0) {
    const backoff = Math.min(MAX_REDISCOVERY_BACKOFF_MS, intervalMs * 2 ** Math.min(failures - 1, 30));
    return now + Math.max(MIN_REDISCOVERY_GAP_MS, backoff);
  }
  const byInterval = now + Math.max(MIN_REDISCOVERY_GAP_MS, intervalMs);
  const hinted = inventoryStaleAt === null ? Number.NaN : Date.parse(inventoryStaleAt);
  if (Number.isNaN(hinted)) return byInterval;
  return Math.min(byInterval, Math.max(now + MIN_REDISCOVERY_GAP_MS, hinted));
}

/**
 * Scheduled rediscovery (the every-minute cron): discovers the tools of enabled sources whose
 * inventory is older than GATEWAY_REDISCOVERY_MINUTES (default 15) or whose upstream's tools/list
 * cache hint has expired, at most REDISCOVERY_BATCH per run, oldest attempt first — so a large
 * catalog is worked through over several minutes instead of in one long cron run. Failures are
 * recorded on the source (last_discovery_error) and logged; nothing here throws. A tool whose
 * definition changed upstream is held for its owner's approval, as on every discovery (decision 0049).
 */
import type { Db } from "../../lib/db";
import { log } from "../../lib/log";
import { sourceDiscovery } from "../../services";

export const DEFAULT_REDISCOVERY_MINUTES = 15;
export const REDISCOVERY_BATCH = 10;

/** The interval from the var: a positive number of minutes (fractions allowed), else the default. */
export function rediscoveryIntervalMs(value: string | undefined): number {
  const minutes = Number(value);
  if (value === undefined || value.trim() === "" || !Number.isFinite(minutes) || minutes <= 0) {
    if (value !== undefined && value.trim() !== "") log.warn("GATEWAY_REDISCOVERY_MINUTES is not a positive number; using the default", { value });
    return DEFAULT_REDISCOVERY_MINUTES * 60_000;
  }
  return Math.round(minutes * 60_000);
}

export async function rediscoverSources(
  db: Db,
  env: Env,
  now = Date.now(),
): Promise<{ checked: number; failed: number }> {
  // The events a rediscovery commits (changed tool definitions held) are sent before the run ends.
  const sending: Promise<unknown>[] = [];
  try {
    const discovery = sourceDiscovery(env, db, (promise) => sending.push(promise));
    return await discovery.rediscoverDue(rediscoveryIntervalMs(env.GATEWAY_REDISCOVERY_MINUTES), REDISCOVERY_BATCH, now);
  } catch (error) {
    log.error("gateway rediscovery run failed", { error: String(error) });
    return { checked: 0, failed: 0 };
  } finally {
    await Promise.allSettled(sending);
  }
}

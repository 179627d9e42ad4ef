/**
 * The cron's safety net for rediscovery (decision 0067). Each source's GatewaySource object runs
 * its own rediscovery from its alarm, set after every discovery; this only gives an alarm to
 * enabled sources that have none — sources registered before alarms, or one whose scheduling
 * failed — at most REARM_BATCH a run. Re-arming talks to no upstream: one object request and one
 * D1 write per source, so a run stays short however many sources need it. Nothing here throws.
 */
import type { Db } from "../../lib/db";
import { log } from "../../lib/log";
import { sourceDiscovery } from "../../services";

/** Sources re-armed per run (a minute): 144,000 a day. */
export const REARM_BATCH = 100;
/**
 * How long past its time a source's alarm may be before it counts as missing: a rung alarm's
 * discovery takes at most a source's timeout and then moves the time forward, so anything this late
 * has no alarm (or lost the D1 write that records it, which re-arming repairs).
 */
export const ALARM_OVERDUE_MS = 10 * 60_000;

export async function rearmRediscoveryAlarms(db: Db, env: Env, now = Date.now()): Promise<{ rearmed: number; failed: number }> {
  try {
    return await sourceDiscovery(env, db).rearmMissingAlarms(REARM_BATCH, ALARM_OVERDUE_MS, now);
  } catch (error) {
    log.error("gateway rediscovery re-arm run failed", { error: String(error) });
    return { rearmed: 0, failed: 0 };
  }
}

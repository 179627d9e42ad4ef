/**
 * A source's own rediscovery alarm (decision 0067), in its GatewaySource object: every discovery,
 * whatever started it, ends with `schedule`, which sets the alarm at the next time
 * (discovery/rediscovery-timing.ts: the interval, sooner on the upstream's cache hint, backing off
 * while discoveries fail). When it rings, the object asks the Worker's inventory entry point to
 * rediscover the source (GATEWAY_INVENTORY, as list_changed does: the Worker side reads D1, opens
 * the source's secrets and writes the inventory), and that discovery schedules the next alarm. A
 * disabled source is not rediscovered and its alarm is not set again (enabling it discovers it); a
 * deleted one's object forgets everything.
 */
import { log } from "../../lib/log";
import { nextRediscoveryAt, rediscoveryIntervalMs } from "../discovery/rediscovery-timing";
import type { RediscoveryReport, RediscoveryRun } from "../sources/upstream.types";
import type { SourceStorage } from "./source-storage";

export interface RediscoveryAlarmDeps {
  storage: SourceStorage;
  /** The object's alarm (DurableObjectStorage). */
  alarm: Pick<DurableObjectStorage, "getAlarm" | "setAlarm" | "deleteAlarm">;
  env: Pick<Env, "GATEWAY_INVENTORY" | "GATEWAY_REDISCOVERY_MINUTES">;
}

export class RediscoveryAlarm {
  constructor(private readonly deps: RediscoveryAlarmDeps) {}

  /** A discovery of the source ended: count a failure or clear the count, and set the alarm. Returns its time (epoch ms). */
  async schedule(report: RediscoveryReport): Promise<number> {
    const { storage, alarm, env } = this.deps;
    const failures = report.succeeded ? 0 : (storage.rediscovery()?.failures ?? 0) + 1;
    const at = nextRediscoveryAt({
      failures,
      inventoryStaleAt: report.succeeded ? report.inventoryStaleAt : null,
      intervalMs: rediscoveryIntervalMs(env.GATEWAY_REDISCOVERY_MINUTES),
      now: Date.now(),
    });
    storage.setRediscovery({ sourceId: report.sourceId, failures });
    await alarm.setAlarm(at);
    return at;
  }

  /** The cron's safety net: an alarm already set stays; a missing one is set for `at`. Returns the alarm's time. */
  async ensure(sourceId: number, at: number): Promise<number> {
    const { storage, alarm } = this.deps;
    const set = await alarm.getAlarm();
    if (set !== null) return set;
    storage.setRediscovery({ sourceId, failures: storage.rediscovery()?.failures ?? 0 });
    await alarm.setAlarm(at);
    return at;
  }

  /**
   * The alarm rang. Returns what the Worker did; on "gone" the caller forgets the source. When the
   * Worker cannot be reached the attempt counts as a failure and the alarm backs off.
   */
  async ring(): Promise<RediscoveryRun | undefined> {
    const state = this.deps.storage.rediscovery();
    // Armed by nothing this object knows (its state was forgotten): there is no source to run.
    if (!state) return undefined;
    let run: RediscoveryRun;
    try {
      run = await this.deps.env.GATEWAY_INVENTORY.rediscover(state.sourceId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.error("gateway rediscovery alarm failed", { source_id: state.sourceId, error: message });
      await this.schedule({ sourceId: state.sourceId, succeeded: false, inventoryStaleAt: null });
      return undefined;
    }
    // Rediscovered: that discovery has already set the next alarm through `schedule`.
    if (run === "disabled") this.deps.storage.forgetRediscovery();
    return run;
  }

  /** The source was deleted: no alarm stays. */
  async cancel(): Promise<void> {
    await this.deps.alarm.deleteAlarm();
    this.deps.storage.forgetRediscovery();
  }
}

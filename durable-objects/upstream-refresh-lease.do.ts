/**
 * One Durable Object per gateway source (idFromName(String(source id))): the single-flight gate for
 * refreshing its owner's upstream OAuth token (decision 0040), in an object of its own (decision
 * 0058) rather than the source's GatewaySource, whose jobs are the upstream connection, the breaker
 * and the call window. The gate's logic is workers/upstream-connections/refresh-lease.ts; this class
 * wires its storage and delegates.
 */
import { DurableObject } from "cloudflare:workers";
import { RefreshLeases } from "../workers/upstream-connections/refresh-lease";

export class UpstreamRefreshLease extends DurableObject<Env> {
  private readonly leases = new RefreshLeases(this.ctx.storage.kv);
  /** The RPCs this instance has served since it started, by method: tests read how many callers reached the gate. */
  private readonly rpc: Record<string, number> = {};

  /**
   * Takes `userId`'s lease for `leaseMs` (its id comes back), or waits for its holder to end it and
   * answers null: the caller then reads the stored tokens again.
   */
  async beginTokenRefresh(userId: number, leaseMs: number): Promise<string | null> {
    this.count("beginTokenRefresh");
    const turn = await this.leases.begin(userId, leaseMs);
    if (!turn) return null;
    // A lease nobody ends is deleted when it runs out (alarm), so a deleted source leaves nothing here.
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > turn.taken.until) await this.ctx.storage.setAlarm(turn.taken.until);
    return turn.taken.id;
  }

  /** The holder of `leaseId` is done: the waiters read the tokens again. */
  endTokenRefresh(userId: number, leaseId: string): void {
    this.count("endTokenRefresh");
    this.leases.end(userId, leaseId);
  }

  status(): { rpc: Record<string, number> } {
    return { rpc: { ...this.rpc } };
  }

  override async alarm(): Promise<void> {
    const next = this.leases.sweep(Date.now());
    if (next !== undefined) await this.ctx.storage.setAlarm(next);
  }

  private count(method: string): void {
    this.rpc[method] = (this.rpc[method] ?? 0) + 1;
  }
}

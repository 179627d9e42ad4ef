/**
 * One Durable Object per gateway source (idFromName(String(source id))): the authority on the
 * source's circuit breaker and call window, and the home of its connections when the upstream
 * keeps sessions. It talks to its own storage only. This class wires that storage and delegates
 * each RPC to the gateway's source-object room (workers/gateway/source-object/):
 *
 * - `discover`: list the tools and learn the upstream's kind (discover-upstream.ts); the Worker's
 *   discovery service writes the inventory and the kind to D1.
 * - `callTool`: a sessionful source's call, over the object's connections (sessionful-call.ts,
 *   upstream-connections.ts); a warm connection's list_changed re-lists the tools and hands them to
 *   the Worker's inventory entry point (list-changed.ts).
 * - `forward`: the same for a sessionful source's resources, prompts and completions (decision 0068).
 * - `breakerState`, `admitProbe`, `report`: the breaker and call window for both call paths
 *   (source-breaker.ts); stateless calls never pass through here, their isolates read the breaker
 *   through their view of it (workers/gateway/calls/breaker-view.ts) and report afterwards.
 * - `scheduleRediscovery`, `ensureRediscovery`, `alarm`: the source's own rediscovery alarm, set
 *   after every discovery and run through the Worker's inventory entry point (rediscovery-alarm.ts).
 * - `status`, `reset`: what it holds (source-status.ts), and forgetting it when the source is deleted.
 *
 * Configuration (including decrypted headers and an owner's upstream OAuth token) arrives with
 * every call and is never stored here. The owner's token refreshes are gated by another object,
 * UpstreamRefreshLease (decision 0058).
 */
import { DurableObject } from "cloudflare:workers";
import { onFirstUse } from "../workers/lib/first-use";
import { SourceBreaker } from "../workers/gateway/source-object/source-breaker";
import { RpcCounts, sourceStatus } from "../workers/gateway/source-object/source-status";
import { RediscoveryAlarm } from "../workers/gateway/source-object/rediscovery-alarm";
import { SourceStorage } from "../workers/gateway/source-object/source-storage";
import type { SourceUpstream } from "../workers/gateway/source-object/source-upstream";
import type {
  BreakerSnapshot,
  CallReport,
  DiscoveryOutcome,
  ProbeVerdict,
  RediscoveryReport,
  SourceStatus,
  UpstreamCall,
  UpstreamCallOutcome,
  UpstreamConfig,
  UpstreamForward,
  UpstreamForwardOutcome,
} from "../workers/gateway/sources/upstream.types";

/**
 * What talks to upstreams — the MCP client SDK, the URL rules, the call results — imported by the
 * first discovery or call. Every isolate of the Worker evaluates this class when it starts, and few
 * of them ever talk to an upstream (decision 0034); the breaker and the call window need none of it.
 */
const upstreamSide = onFirstUse(() => import("../workers/gateway/source-object/source-upstream"));

export class GatewaySource extends DurableObject<Env> {
  private readonly storage = new SourceStorage(this.ctx.storage.kv);
  private readonly breaker = new SourceBreaker(this.storage);
  private readonly rpc = new RpcCounts();
  private readonly rediscovery = new RediscoveryAlarm({ storage: this.storage, alarm: this.ctx.storage, env: this.env });
  private upstream: SourceUpstream | undefined;

  async discover(config: UpstreamConfig): Promise<DiscoveryOutcome> {
    this.rpc.count("discover");
    return (await this.upstreamSide()).discover(config);
  }

  async callTool(config: UpstreamConfig, call: UpstreamCall): Promise<UpstreamCallOutcome> {
    this.rpc.count("callTool");
    return (await this.upstreamSide()).callTool(config, call);
  }

  /** A sessionful source's list, read, prompt or completion (decision 0068), on a call's terms. */
  async forward(config: UpstreamConfig, forward: UpstreamForward): Promise<UpstreamForwardOutcome> {
    this.rpc.count("forward");
    return (await this.upstreamSide()).forward(config, forward);
  }

  breakerState(): BreakerSnapshot {
    this.rpc.count("breakerState");
    return this.breaker.snapshot();
  }

  admitProbe(leaseMs: number): ProbeVerdict {
    this.rpc.count("admitProbe");
    return this.breaker.admitProbe(leaseMs);
  }

  /** Stateless calls an isolate made, in the order they ended: the breaker and window follow them. */
  report(reports: CallReport[]): BreakerSnapshot {
    this.rpc.count("report");
    this.breaker.apply(...reports);
    return this.breaker.snapshot();
  }

  /** A discovery of the source ended (any path): the alarm is set for the next one. Returns its time (epoch ms). */
  scheduleRediscovery(report: RediscoveryReport): Promise<number> {
    this.rpc.count("scheduleRediscovery");
    return this.rediscovery.schedule(report);
  }

  /** The cron's safety net: sets the alarm for `at` unless one is set. Returns the alarm's time (epoch ms). */
  ensureRediscovery(sourceId: number, at: number): Promise<number> {
    this.rpc.count("ensureRediscovery");
    return this.rediscovery.ensure(sourceId, at);
  }

  override async alarm(): Promise<void> {
    if ((await this.rediscovery.ring()) === "gone") await this.forget();
  }

  status(): SourceStatus {
    return sourceStatus(this.storage, this.upstream?.warm ?? false, this.rpc);
  }

  /** Closes the warm connection and forgets everything (the source was deleted). */
  async reset(): Promise<void> {
    this.rpc.count("reset");
    await this.forget();
  }

  private async forget(): Promise<void> {
    await this.rediscovery.cancel();
    await this.upstream?.close();
    this.storage.forgetAll();
  }

  private async upstreamSide(): Promise<SourceUpstream> {
    const { SourceUpstream } = await upstreamSide();
    this.upstream ??= new SourceUpstream({
      storage: this.storage,
      breaker: this.breaker,
      env: this.env,
      waitUntil: (promise) => this.ctx.waitUntil(promise),
    });
    return this.upstream;
  }
}

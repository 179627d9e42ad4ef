/**
 * This isolate's view of the circuit breakers of the stateless sources it calls. The breaker and
 * the call window live in each source's Durable Object (the one authority, shared by every
 * isolate); a stateless call never waits for it:
 *
 * - Admission reads the view. The view holds what the object last told this isolate plus this
 *   isolate's own reports the object has not answered yet, so an isolate sees its own failures at
 *   once and opens the breaker on the call that makes the threshold.
 * - After the answer is sent, the call is reported (`report` RPC) in the isolate's next run of
 *   deferred work (deferred-batch.ts, shared with the audit messages, so a call keeps its request
 *   alive with one waitUntil). Reports finishing within DEFERRED_RUN_DELAY_MS of each other travel
 *   in one RPC; the object's answer — its breaker after applying them, which includes other
 *   isolates' reports — refreshes the view.
 *   Under load that is one report RPC per source per isolate every half second, whatever the rate.
 *   The delay changes what nobody could see sooner: the isolate's own view needs no report, health
 *   reads send this isolate's pending reports first, and other isolates act on what they were told
 *   up to BREAKER_VIEW_TTL_MS ago anyway.
 * - The bound: an isolate acts on what the object told it at most BREAKER_VIEW_TTL_MS ago. A view
 *   older than that (a source not called for a while in this isolate, or never) is read from the
 *   object first — the only time a stateless call waits for the object besides the probe below.
 *   So a breaker opened by other isolates' failures reaches this one within the bound.
 * - An open breaker answers at once until its cooldown has passed. Then the half-open probe is
 *   admitted by the object (`admitProbe`), so exactly one isolate sends it; the others answer
 *   circuit_open and ask again after the object's retry hint.
 */
import { log } from "../../lib/log";
import { type Admission, admit, CLOSED, recordFailure, recordSuccess } from "./breaker";
import { DeferredBatch } from "./deferred-batch";
import type { BreakerEffect, BreakerSnapshot, CallReport } from "../sources/upstream.types";

/** How old a breaker state told by the object may be and still be acted on. */
export const BREAKER_VIEW_TTL_MS = 5_000;
/** Sources this isolate keeps a view of (the least recently told are dropped first). */
const MAX_SOURCES = 1024;

/** The source's Durable Object, as its binding types it. */
export type SourceObject = ReturnType<Env["GATEWAY_SOURCE"]["get"]>;

interface View {
  /** What the object last told this isolate, and when. */
  told: BreakerSnapshot;
  toldAt: number;
  /** Sequence number of the report RPC whose answer `told` is (0: a read). */
  toldSeq: number;
  /** This isolate's reports the object has not answered yet, oldest first. */
  unanswered: CallReport[];
  /** `told` with `unanswered` applied: what admission reads. */
  current: BreakerSnapshot;
  /** The deferred run that will send the calls gathered now, if one is joined. */
  flush: Promise<void> | undefined;
  /** Every report RPC scheduled or in flight. */
  sending: Set<Promise<void>>;
  queued: CallReport[];
  sentSeq: number;
  /** Until then the object refused a probe: answer circuit_open without asking again. */
  refusedUntil: number;
}

function applied(breaker: BreakerSnapshot, effect: BreakerEffect, at: number): BreakerSnapshot {
  if (effect === "failure") return recordFailure(breaker, at);
  return effect === "success" ? recordSuccess() : breaker;
}

function fold(reports: readonly CallReport[], told: BreakerSnapshot): BreakerSnapshot {
  return reports.reduce((breaker, report) => applied(breaker, report.breaker, report.at + report.ms), told);
}

export class BreakerView {
  private readonly views = new Map<number, View>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = BREAKER_VIEW_TTL_MS,
    /** The isolate's run of deferred work (shared with the audit); a view built without one (a test) runs its own. */
    private readonly deferred: DeferredBatch = new DeferredBatch(),
  ) {}

  /**
   * Whether a call may go out now. `object` is asked only when the view is older than the bound, or
   * for the half-open probe; `probeLeaseMs` is how long the object holds the probe for this call.
   */
  async admit(sourceId: number, object: () => SourceObject, probeLeaseMs: number): Promise<Admission> {
    let view = this.views.get(sourceId);
    if (!view || this.now() - view.toldAt >= this.ttlMs) view = this.tell(sourceId, await object().breakerState(), 0);
    const now = this.now();
    if (now < view.refusedUntil) return { allowed: false, retryAfterMs: view.refusedUntil - now };
    const local = admit(view.current, now, false);
    if (!local.allowed || !local.probe) return local;
    const verdict = await object().admitProbe(probeLeaseMs);
    view = this.tell(sourceId, verdict.breaker, 0);
    if (verdict.allowed) return local;
    view.refusedUntil = this.now() + verdict.retryAfterMs;
    return { allowed: false, retryAfterMs: verdict.retryAfterMs };
  }

  /** Applies the call to this isolate's view at once and reports it to the object in the background. */
  record(sourceId: number, report: CallReport, object: () => SourceObject, waitUntil: (promise: Promise<unknown>) => void): void {
    const view = this.views.get(sourceId) ?? this.tell(sourceId, CLOSED, 0, -Infinity);
    view.unanswered.push(report);
    view.queued.push(report);
    view.current = applied(view.current, report.breaker, report.at + report.ms);
    // Every request whose call the run reports keeps it alive (waitUntil), with the same promise
    // as its audit message: the request hands the runtime one promise for both.
    if (!view.flush) {
      const flush = this.deferred.join(() => this.send(sourceId, view, object));
      view.flush = flush;
      view.sending.add(flush);
      void flush.finally(() => view.sending.delete(flush));
    }
    waitUntil(view.flush);
  }

  /** What the object said after a discovery (or any other RPC that returns the breaker). */
  set(sourceId: number, breaker: BreakerSnapshot): void {
    this.tell(sourceId, breaker, 0);
  }

  forget(sourceId: number): void {
    this.views.delete(sourceId);
  }

  /** Waits until this isolate's reports of the source so far reached the object (health reads first). */
  async flush(sourceId: number): Promise<void> {
    const view = this.views.get(sourceId);
    if (view) await Promise.all([...view.sending]);
  }

  private tell(sourceId: number, breaker: BreakerSnapshot, seq: number, at = this.now()): View {
    let view = this.views.get(sourceId);
    if (!view) {
      if (this.views.size >= MAX_SOURCES) this.dropOne();
      view = {
        told: breaker,
        toldAt: at,
        toldSeq: seq,
        unanswered: [],
        current: breaker,
        flush: undefined,
        sending: new Set(),
        queued: [],
        sentSeq: 0,
        refusedUntil: 0,
      };
      this.views.set(sourceId, view);
      return view;
    }
    if (seq !== 0 && seq < view.toldSeq) return view; // an older RPC's answer, overtaken by a newer one
    view.told = breaker;
    view.toldAt = at;
    if (seq !== 0) view.toldSeq = seq;
    view.current = fold(view.unanswered, breaker);
    return view;
  }

  private async send(sourceId: number, view: View, object: () => SourceObject): Promise<void> {
    view.flush = undefined;
    const batch = view.queued;
    view.queued = [];
    const seq = ++view.sentSeq;
    let told: BreakerSnapshot | undefined;
    try {
      told = await object().report(batch);
    } catch (error) {
      log.warn("gateway call reports lost", { source_id: sourceId, calls: batch.length, error: String(error) });
    }
    view.unanswered = view.unanswered.filter((report) => !batch.includes(report));
    if (told) this.tell(sourceId, told, seq);
    else view.current = fold(view.unanswered, view.told);
  }

  private dropOne(): void {
    for (const [id, view] of this.views) {
      if (view.sending.size === 0 && view.unanswered.length === 0) {
        this.views.delete(id);
        return;
      }
    }
  }
}

/**
 * The source object as the one authority on the source's circuit breaker and call window, for
 * both call paths: its own sessionful calls are admitted here, and the Worker's isolates read the
 * breaker (`breakerState`), ask for the half-open probe (`admitProbe`) and send their stateless
 * calls' `report`s (their side: calls/breaker-view.ts). The breaker and the window are stored; the
 * probe's lease lives in memory.
 */
import { type Admission, admit, probeLeaseMs, recordFailure, recordSuccess } from "../calls/breaker";
import { recordCall } from "../calls/call-stats";
import type { BreakerSnapshot, CallReport, ProbeVerdict } from "../sources/upstream.types";
import type { SourceStorage } from "./source-storage";

function sameBreaker(a: BreakerSnapshot, b: BreakerSnapshot): boolean {
  return a.state === b.state && a.failures === b.failures && a.openedAt === b.openedAt;
}

export class SourceBreaker {
  /** A half-open probe is out until then (this object's own call, or an isolate's it admitted). */
  private probeUntil = 0;

  constructor(private readonly storage: SourceStorage) {}

  /** The breaker as it stands: what an isolate's view reads when it is cold or stale. */
  snapshot(): BreakerSnapshot {
    return this.storage.breaker();
  }

  /** Admits one of the object's own calls at `now`; a probe it lets through is held for the call's `timeoutMs`. */
  admitCall(now: number, timeoutMs: number): Admission {
    const admission = admit(this.snapshot(), now, now < this.probeUntil);
    if (!admission.allowed) return admission;
    this.storage.setBreaker(admission.next);
    if (admission.probe) this.probeUntil = now + probeLeaseMs(timeoutMs);
    return admission;
  }

  /**
   * Whether an isolate may send the half-open probe now: granted to one caller at a time, for
   * `leaseMs` at most. A closed breaker (the isolate's view was behind) lets the call through.
   */
  admitProbe(leaseMs: number): ProbeVerdict {
    const now = Date.now();
    const admission = admit(this.snapshot(), now, now < this.probeUntil);
    if (!admission.allowed) return { allowed: false, retryAfterMs: admission.retryAfterMs, breaker: this.snapshot() };
    if (admission.probe) {
      this.storage.setBreaker(admission.next);
      this.probeUntil = now + leaseMs;
    }
    return { allowed: true, retryAfterMs: 0, breaker: admission.next };
  }

  /** Calls' effect on the breaker and the call window, whichever path made them: one write of each at most. */
  apply(...reports: CallReport[]): void {
    const before = this.snapshot();
    let breaker = before;
    let calls = this.storage.calls();
    for (const report of reports) {
      const at = report.at + report.ms;
      if (report.breaker === "failure") breaker = recordFailure(breaker, at);
      else if (report.breaker === "success") breaker = recordSuccess();
      if (report.probe) this.probeUntil = 0;
      calls = recordCall(calls, { at: report.at, ms: report.ms, error: report.error });
    }
    if (!sameBreaker(breaker, before)) this.storage.setBreaker(breaker);
    this.storage.setCalls(calls);
  }

  /** An explicit, successful discovery is proof of health: it closes the breaker. */
  discovered(): void {
    this.storage.setBreaker(recordSuccess());
  }

  /** A discovery that failed in a way that counts against the upstream. */
  discoveryFailed(at: number): void {
    this.storage.setBreaker(recordFailure(this.snapshot(), at));
  }
}

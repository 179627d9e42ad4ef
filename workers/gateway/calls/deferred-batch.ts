/**
 * Background work of the calls an isolate serves, gathered and run together: one timer and one
 * promise for every piece of a call's bookkeeping that waits — the GATEWAY_CALL audit messages
 * (tool-call-audit.ts) and the breaker reports to sources' objects (breaker-view.ts). So a call
 * hands the runtime one promise to keep the request alive for (`waitUntil`), not one per kind of
 * bookkeeping, and no call starts a timer of its own: under load one run per isolate every
 * DEFERRED_RUN_DELAY_MS, whatever the call rate.
 *
 * A piece of work joins the next run (`join`) and gets that run's promise, which settles when every
 * piece in it has finished; each piece handles its own failures (a failing one is logged here and
 * does not stop the others). Work joining while a run is under way goes to the run after it.
 */
import { log } from "../../lib/log";

/** How long an isolate gathers a call's background work before running it with the others. */
export const DEFERRED_RUN_DELAY_MS = 500;

export type DeferredWork = () => Promise<void>;

export class DeferredBatch {
  private pending: DeferredWork[] = [];
  private next: Promise<void> | undefined;

  constructor(private readonly delayMs = DEFERRED_RUN_DELAY_MS) {}

  /** Adds `work` to the next run; that run's promise, the one to keep the request alive for. */
  join(work: DeferredWork): Promise<void> {
    this.pending.push(work);
    return (this.next ??= this.runLater());
  }

  private async runLater(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const work = this.pending;
    this.pending = [];
    this.next = undefined;
    await Promise.all(
      work.map((piece) =>
        piece().catch((error: unknown) => {
          log.warn("deferred gateway work failed", { error: String(error) });
        }),
      ),
    );
  }
}

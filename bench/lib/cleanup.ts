/**
 * Everything the bench starts (workerd processes, the node peer, temp dirs) registers how to stop
 * it here; `disposeAll` runs those in reverse order exactly once, on success, failure or Ctrl-C,
 * and every caller waits for that one run to finish.
 */
const SIGNAL_CLEANUP_DEADLINE_MS = 20_000;

export class Cleanup {
  private readonly steps: { label: string; run: () => Promise<void> | void }[] = [];
  private disposing: Promise<void> | undefined;

  add(label: string, run: () => Promise<void> | void): void {
    this.steps.push({ label, run });
  }

  disposeAll(): Promise<void> {
    this.disposing ??= this.runSteps();
    return this.disposing;
  }

  private async runSteps(): Promise<void> {
    for (const step of [...this.steps].reverse()) {
      try {
        await step.run();
      } catch (error) {
        console.error(`cleanup: ${step.label} failed: ${String(error)}`);
      }
    }
  }

  /** Ctrl-C / kill: stop children before exiting, so no workerd or temp dir is left behind. */
  onSignals(): void {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        console.error(`\n${signal}: stopping servers…`);
        // The timer also keeps the event loop alive: without it Node may exit mid-cleanup.
        const deadline = setTimeout(() => {
          console.error("cleanup did not finish in time; exiting anyway");
          process.exit(130);
        }, SIGNAL_CLEANUP_DEADLINE_MS);
        void this.disposeAll().finally(() => {
          clearTimeout(deadline);
          process.exit(130);
        });
      });
    }
  }
}

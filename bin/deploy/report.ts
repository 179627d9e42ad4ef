/** What `npm run deploy` did, skipped and (with --dry-run) would do: one line each, as it happens. */
export interface Report {
  did(what: string): void;
  skipped(what: string, why: string): void;
  would(what: string): void;
  /** The tally printed last. */
  summary(): string;
}

export function consoleReport(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Report {
  const counts = { did: 0, skipped: 0, would: 0 };
  return {
    did(what) {
      counts.did += 1;
      write(`  done     ${what}`);
    },
    skipped(what, why) {
      counts.skipped += 1;
      write(`  skipped  ${what}: ${why}`);
    },
    would(what) {
      counts.would += 1;
      write(`  plan     ${what}`);
    },
    summary() {
      return counts.would > 0 && counts.did === 0
        ? `Dry run: ${counts.would} steps planned, nothing changed on Cloudflare.`
        : `Deployed: ${counts.did} done, ${counts.skipped} skipped.`;
    },
  };
}

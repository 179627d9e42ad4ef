/**
 * A Worker for the conformance suite under `wrangler dev` (bin/lib/wrangler-dev.ts), served from
 * its own config (the real wrangler.toml or the fixture's), with its own local D1 under
 * .wrangler/conformance/<label>/, so a run never touches `npm run dev` state or port 8787.
 */
import { join } from "node:path";
import { ROOT } from "../lib/wrangler";
import { type LocalWorker, prepareLocalDatabase, runWranglerDev, stopAllWorkers } from "../lib/wrangler-dev";

export { ROOT, stopAllWorkers, type LocalWorker };

export interface ConformanceWorkerOptions {
  label: string;
  /** wrangler config, relative to the repository root */
  config: string;
  logDir: string;
}

export async function startLocalWorker({ label, config, logDir }: ConformanceWorkerOptions): Promise<LocalWorker> {
  const persistTo = join(".wrangler", "conformance", label);
  const token = await prepareLocalDatabase(`conformance-${Date.now()}`, "npm run conformance", { config, persistTo });
  const { origin, stop } = await runWranglerDev(
    () => ["--config", config, "--persist-to", persistTo],
    join(logDir, `${label}.wrangler.log`),
  );
  return { origin, token, stop };
}

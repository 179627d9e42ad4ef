/**
 * npm run soak: the crash test (not part of `npm test`; it takes about two minutes).
 *
 * 1. Starts the Worker under `wrangler dev` on a fresh local state (.wrangler/soak) with several
 *    users, and writes tasks from all of them at once (REST and MCP, creations and renames).
 * 2. Mid-load, SIGKILLs the whole process group (wrangler and workerd) — requests in flight die.
 * 3. Restarts it on the same persisted state and writes some more.
 * 4. Fires the cron through /__scheduled until the outbox relay has re-sent what the crash cut
 *    off (it waits out the relay's grace period), then stops the Worker.
 * 5. Checks in D1: every acknowledged write is there; each change has exactly one outbox row;
 *    outbox and audit_log hold the same events (no loss, no duplicate). Prints the figures; exits 1
 *    on any loss or duplicate.
 *
 * SOAK_USERS (4), SOAK_LOOPS (6 per user), SOAK_BEFORE_MS (5000), SOAK_AFTER_MS (3000) tune it.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { LOG_DIR } from "./lib/local-worker";
import { ROOT } from "./lib/wrangler";
import { prepareLocalDatabase, runWranglerDev, stopAllWorkers } from "./lib/wrangler-dev";
import { check, type Database, passed, undelivered } from "./soak/check";
import { newLedger, runLoad, type SoakUser } from "./soak/load";

const USERS = Number(process.env["SOAK_USERS"] ?? 4);
const LOOPS = Number(process.env["SOAK_LOOPS"] ?? 6);
const BEFORE_MS = Number(process.env["SOAK_BEFORE_MS"] ?? 5_000);
const AFTER_MS = Number(process.env["SOAK_AFTER_MS"] ?? 3_000);
/** workers/events/outbox.relay.ts RELAY_GRACE_MS, plus a margin: younger rows are not relayed yet. */
const RELAY_GRACE_MS = 60_000 + 5_000;
const RELAY_DEADLINE_MS = 180_000;

const STATE = join(ROOT, ".wrangler", "soak");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** wrangler bundles the Worker itself here: /__scheduled (--test-scheduled) is middleware it adds to the bundle. */
async function start(run: number) {
  return runWranglerDev(() => ["--persist-to", STATE, "--test-scheduled"], join(LOG_DIR, `soak-${run}.wrangler.log`));
}

/** Fires the cron until no outbox row of the soak's users is undelivered; returns the rounds fired. */
async function relay(origin: string, db: Database, users: readonly string[]): Promise<number> {
  const deadline = Date.now() + RELAY_DEADLINE_MS;
  let round = 0;
  while (Date.now() < deadline) {
    round++;
    const res = await fetch(`${origin}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    if (!res.ok) throw new Error(`/__scheduled answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    await sleep(3_000); // the queue consumer's batch timeout is 1 s
    if (undelivered(db, users) === 0) break;
  }
  return round;
}

async function main(): Promise<void> {
  rmSync(STATE, { recursive: true, force: true });
  const db: Database = { config: join(ROOT, "wrangler.toml"), persistTo: STATE };
  const stamp = Date.now().toString(36);
  const users: SoakUser[] = [];
  for (let i = 0; i < USERS; i++) {
    const name = `soak-${stamp}-${i}`;
    users.push({ name, token: await prepareLocalDatabase(name, "npm run soak", db) });
  }
  const names = users.map((user) => user.name);
  const ledger = newLedger();

  let worker = await start(1);
  let running = true;
  const load = runLoad({ origin: () => worker.origin, users, loopsPerUser: LOOPS, ledger, running: () => running, firstSeq: 1 });
  await sleep(BEFORE_MS);
  const acknowledgedBeforeKill = ledger.adds.size + ledger.renames.size;
  await worker.crash();
  const killedAt = Date.now();
  running = false;
  await load;
  const lostAtKill = ledger.lost;
  const undeliveredAfterCrash = undelivered(db, names);

  worker = await start(2);
  running = true;
  const sentBefore = ledger.sent;
  const again = runLoad({ origin: () => worker.origin, users, loopsPerUser: LOOPS, ledger, running: () => running, firstSeq: 1_000_000 });
  await sleep(AFTER_MS);
  running = false;
  await again;
  const sentAfterRestart = ledger.sent - sentBefore;

  await sleep(Math.max(0, killedAt + RELAY_GRACE_MS - Date.now()));
  const rounds = await relay(worker.origin, db, names);
  await worker.stop();

  const figures = check(db, names, ledger);
  const ok = passed(figures, ledger);
  const lines = [
    `soak: ${USERS} users × ${LOOPS} writers; ${BEFORE_MS / 1000} s of load, SIGKILL of the process group, restart, ${AFTER_MS / 1000} s more`,
    `  requests      ${ledger.sent} sent (${sentAfterRestart} after the restart); ${ledger.lost} got no answer (${lostAtKill} at the kill); ${ledger.serverErrors} answered 5xx; ${ledger.refused} refused${ledger.refusedSample ? ` (e.g. ${ledger.refusedSample})` : ""}`,
    `  acknowledged  ${ledger.adds.size} creations, ${ledger.renames.size} renames (${acknowledgedBeforeKill} before the kill)`,
    `  in D1         ${figures.tasks} tasks (${figures.unacknowledgedTasks} committed without an acknowledgement); missing: ${figures.missingAdds} creations, ${figures.missingRenames} renames`,
    `  outbox        ${figures.outbox} rows (${Object.entries(figures.outboxByType)
      .map(([type, n]) => `${n} ${type}`)
      .join(
        ", ",
      )}); ${figures.duplicateEvents} tasks with a missing or duplicated event; ${undeliveredAfterCrash} undelivered after the crash, ${figures.undelivered} after ${rounds} cron relay round(s)`,
    `  audit_log     ${figures.audit} rows for ${figures.outbox} outbox rows; ${figures.outboxWithoutAudit} outbox rows without audit, ${figures.auditWithoutOutbox} audit rows without outbox; ${figures.deadLetters} dead letters`,
    ...figures.problems.map((problem) => `  PROBLEM       ${problem}`),
    `soak: ${ok ? "PASS — no acknowledged write lost, no event lost or duplicated" : "FAIL"}`,
  ];
  console.log(lines.join("\n"));
  process.exit(ok ? 0 : 1);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stopAllWorkers().finally(() => process.exit(130)));
}

main().catch(async (error: unknown) => {
  console.error(`soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await stopAllWorkers();
  process.exit(1);
});

/**
 * The cron's OAuth clean-up: the library's `purgeExpiredData()` removes grants that expired or
 * whose client is gone, and tokens whose grant is gone (KV's own TTLs remove most records; these
 * are the stragglers and orphans). One sweep covers every grant and token in small batches, one
 * batch per run, resuming from the cursor kept in OAUTH_KV; a finished sweep waits an hour before
 * the next starts, so an idle deployment costs one KV read per run.
 *
 * KV `mcpe-purge-state`: `{ "cursor": "<library cursor>" }` while a sweep is under way, or
 * `{ "next_sweep_at": "<ISO time>" }` between sweeps.
 */
import * as z from "zod";
import { log } from "../lib/log";
import { createAuthorizationServer } from "./authorization-server";
import { issuerOf } from "./issuer";

export const PURGE_STATE_KEY = "mcpe-purge-state";
/** KV keys checked per phase and run: each costs a read, an orphan a few writes; far below a run's subrequest limit. */
export const PURGE_BATCH_SIZE = 50;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** A state nobody updates any more (the cron was off) is forgotten and the sweep starts afresh. */
const STATE_TTL_SECONDS = 24 * 60 * 60;

const PurgeState = z.union([z.object({ cursor: z.string().min(1) }), z.object({ next_sweep_at: z.iso.datetime() })]);
type PurgeState = z.infer<typeof PurgeState>;

export interface PurgeRun {
  /** False when no sweep was due. */
  ran: boolean;
  grantsPurged: number;
  tokensPurged: number;
  /** The sweep reached the end of both key families in this run. */
  sweepDone: boolean;
}

async function readState(kv: KVNamespace): Promise<PurgeState | undefined> {
  const parsed = PurgeState.safeParse(await kv.get(PURGE_STATE_KEY, "json").catch(() => undefined));
  return parsed.success ? parsed.data : undefined;
}

/**
 * One batch of the sweep. The library needs an authorization server to run it, but the purge only
 * reads and deletes KV records, which name no origin: any issuer this Worker accepts will do, on a
 * server made for this run (a minute's cron keeps none).
 */
export async function purgeExpiredOAuthData(env: Env, now = new Date(), batchSize = PURGE_BATCH_SIZE): Promise<PurgeRun> {
  const state = await readState(env.OAUTH_KV);
  if (state && "next_sweep_at" in state && Date.parse(state.next_sweep_at) > now.getTime()) {
    return { ran: false, grantsPurged: 0, tokensPurged: 0, sweepDone: false };
  }
  const cursor = state && "cursor" in state ? state.cursor : undefined;
  const server = createAuthorizationServer(issuerOf("http://localhost", env) ?? "http://localhost");
  let result;
  try {
    result = await server.purgeExpiredData(env, { batchSize, ...(cursor ? { cursor } : {}) });
  } catch (error) {
    // A cursor the library no longer understands (it changed its format): start the sweep again.
    if (!(error instanceof TypeError) || cursor === undefined) throw error;
    log.warn("oauth purge cursor refused; sweeping from the start", { error: error.message });
    result = await server.purgeExpiredData(env, { batchSize });
  }
  const next: PurgeState =
    result.done || !result.cursor
      ? { next_sweep_at: new Date(now.getTime() + SWEEP_INTERVAL_MS).toISOString() }
      : { cursor: result.cursor };
  await env.OAUTH_KV.put(PURGE_STATE_KEY, JSON.stringify(next), { expirationTtl: STATE_TTL_SECONDS });
  return { ran: true, grantsPurged: result.grantsPurged, tokensPurged: result.tokensPurged, sweepDone: result.done };
}

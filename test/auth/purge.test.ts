/**
 * The cron's OAuth clean-up: an expired grant's records (the grant and its access tokens) are
 * removed from OAUTH_KV while live ones stay; the sweep resumes from its cursor in KV across runs,
 * then rests; and it runs from the Worker's scheduled handler.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REFRESH_TOKEN_TTL_SECONDS } from "../../workers/auth/authorization-server";
import { PURGE_STATE_KEY, purgeExpiredOAuthData } from "../../workers/auth/oauth-purge.cron";
import worker from "../../workers/index";
import { obtainTokens } from "../helpers/oauth";
import { createUser } from "../helpers/users";

/** The library's KV keys of one user's grants and tokens. */
async function recordsOf(userId: number): Promise<string[]> {
  const [grants, tokens] = await Promise.all([
    env.OAUTH_KV.list({ prefix: `grant:${userId}:` }),
    env.OAUTH_KV.list({ prefix: `token:${userId}:` }),
  ]);
  return [...grants.keys, ...tokens.keys].map((key) => key.name);
}

async function sweepToTheEnd(now: Date, batchSize?: number): Promise<number> {
  await env.OAUTH_KV.delete(PURGE_STATE_KEY);
  let runs = 0;
  for (;;) {
    runs++;
    const run = await purgeExpiredOAuthData(env, now, batchSize);
    expect(run.ran).toBe(true);
    if (run.sweepDone) return runs;
    expect(runs).toBeLessThan(100);
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("purging expired OAuth data", () => {
  it("removes an expired grant with its tokens and keeps a live one", async () => {
    const expired = await createUser();
    await obtainTokens(expired);
    const before = await recordsOf(expired.id);
    expect(before.filter((key) => key.startsWith("grant:"))).toHaveLength(1);
    expect(before.filter((key) => key.startsWith("token:"))).toHaveLength(1);

    // A month and a day later (the library's clock; KV still holds the records: its own TTL has not run).
    const later = Date.now() + (REFRESH_TOKEN_TTL_SECONDS + 24 * 60 * 60) * 1000;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(later);
    const live = await createUser();
    await obtainTokens(live);

    await sweepToTheEnd(new Date(later));
    expect(await recordsOf(expired.id)).toEqual([]);
    expect(await recordsOf(live.id)).toHaveLength(2);
  });

  it("resumes from its cursor in KV across runs, then rests until the next sweep is due", async () => {
    const users = await Promise.all([createUser(), createUser(), createUser()]);
    for (const user of users) await obtainTokens(user);
    const now = new Date();
    await env.OAUTH_KV.delete(PURGE_STATE_KEY);

    const first = await purgeExpiredOAuthData(env, now, 1);
    expect(first).toMatchObject({ ran: true, sweepDone: false });
    const saved = await env.OAUTH_KV.get<{ cursor?: string }>(PURGE_STATE_KEY, "json");
    expect(saved?.cursor).toMatch(/^grants:/);

    let runs = 1;
    while (!(await purgeExpiredOAuthData(env, now, 1)).sweepDone) runs++;
    // One grant per run, at least three grants and three tokens: the cursor moved the sweep on.
    expect(runs).toBeGreaterThanOrEqual(5);
    const rest = await env.OAUTH_KV.get<{ next_sweep_at?: string }>(PURGE_STATE_KEY, "json");
    expect(Date.parse(rest!.next_sweep_at!)).toBeGreaterThan(now.getTime());
    expect((await purgeExpiredOAuthData(env, new Date(now.getTime() + 60_000), 1)).ran).toBe(false);
    expect((await purgeExpiredOAuthData(env, new Date(now.getTime() + 61 * 60_000), 1)).ran).toBe(true);
    for (const user of users) expect(await recordsOf(user.id)).toHaveLength(2);
  });

  it("runs from the Worker's scheduled handler", async () => {
    const user = await createUser();
    await obtainTokens(user);
    await env.OAUTH_KV.delete(PURGE_STATE_KEY);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + (REFRESH_TOKEN_TTL_SECONDS + 60) * 1000);
    // Each run purges a batch; a handful of runs covers this file's few grants and tokens.
    for (let run = 0; run < 5; run++) {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
    }
    expect(await recordsOf(user.id)).toEqual([]);
  });
});

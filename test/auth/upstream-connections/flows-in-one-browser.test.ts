/**
 * Several connects open at once in one browser (two tabs, or the console's Connect buttons): each
 * flow binds the browser with its own cookie, so each callback finds its own binding and clears
 * only that one — whatever order they complete in. And a user may have only so many connects in
 * progress, which is what bounds the cookies a browser collects — starts sent at once included,
 * and a start refused at the limit changes nothing of the source's connection.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { randomSecret } from "../../../workers/auth/tokens";
import { openDb } from "../../../workers/lib/db";
import { insertFlow } from "../../../workers/upstream-connections/authorizations.repo";
import { FLOW_TTL_MS, MAX_OPEN_FLOWS } from "../../../workers/upstream-connections/connect-flow.service";
import { callThroughGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { Browser } from "../../helpers/oauth";
import { api, type ApiResponse } from "../../helpers/rest";
import {
  authorizationOf,
  callbackOf,
  connectedTasksSource,
  connectLink,
  publishGatewayClientDocument,
  registerOAuthTasksSource,
  storedTokens,
} from "../../helpers/upstream-oauth";
import { createUser, type TestUser } from "../../helpers/users";
import { callbackFromIssuer, registerNotes } from "../../helpers/notes-upstream";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

/** The upstream-flow cookies the browser holds, by name. */
function flowCookies(browser: Browser): Map<string, string> {
  return new Map([...browser.jar.cookies].filter(([name]) => name.startsWith("__Host-mcpe-upstream-flow")));
}

type StartBody = { authorization_url: string } | { error: { code: string; message: string; retry_after_ms?: number } };

/** `n` connect starts of the owner's source sent at once, as REST answers them. */
function startsAtOnce(owner: TestUser, sourceId: number, n: number): Promise<ApiResponse<StartBody>[]> {
  return Promise.all(Array.from({ length: n }, () => api<StartBody>(owner, "POST", `/api/sources/${sourceId}/authorize`, { body: {} })));
}

/** Expects exactly MAX_OPEN_FLOWS of `answers` started, and every other one refused with when to retry. */
function expectCapHeld(answers: ApiResponse<StartBody>[]): void {
  const started = answers.filter((answer) => answer.status === 201);
  const refused = answers.filter((answer) => answer.status !== 201);
  expect(started, JSON.stringify(refused.map((answer) => answer.body))).toHaveLength(MAX_OPEN_FLOWS);
  expect(refused).toHaveLength(answers.length - MAX_OPEN_FLOWS);
  for (const answer of refused) {
    expect(answer.status, JSON.stringify(answer.body)).toBe(429);
    if (!("error" in answer.body)) throw new Error("a refused start answers the REST error shape");
    expect(answer.body.error.code).toBe("rate_limited");
    expect(answer.body.error.message).toContain(`${MAX_OPEN_FLOWS} connects in progress`);
    expect(answer.body.error.retry_after_ms).toBeGreaterThan(0);
  }
}

async function openFlowsInD1(userId: number): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM upstream_oauth_flows WHERE user_id = ? AND expires_at > ?")
    .bind(userId, new Date().toISOString())
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function expectConnected(response: Response): Promise<void> {
  const html = await response.text();
  expect(response.status, html.replace(/[\s\S]*<main/, "").slice(0, 800)).toBe(200);
  expect(html).toContain("is connected to your account");
}

/**
 * Two different sources, as a user has them: the upstream Worker's /mcp/tasks (its authorization
 * server is that Worker's, mcp-edge's code) and the notes upstream (another issuer). Two sources on
 * the same authorization server would not do here: mcp-edge's server keeps one grant per user and
 * client, so its second authorization revokes the first's code before the gateway could redeem it.
 */
async function twoSources(owner: TestUser): Promise<{ tasks: number; notes: number }> {
  const { source } = await registerOAuthTasksSource(owner);
  const notes = await registerNotes(owner);
  return { tasks: source.id, notes: notes.id };
}

describe("two connects in one browser", () => {
  it("both complete when the first one started completes first", async () => {
    const owner = await createUser();
    const sources = await twoSources(owner);
    const browser = new Browser();
    const tasksCallback = await callbackOf(owner, sources.tasks, browser);
    const notesCallback = await callbackFromIssuer(owner, sources.notes, "erin-at-notes", browser);

    await expectConnected(await browser.get(tasksCallback));
    await expectConnected(await browser.get(notesCallback.href));
    for (const id of [sources.tasks, sources.notes]) {
      expect((await authorizationOf(owner, id)).status).toBe("connected");
      expect(await storedTokens(owner.id, id)).not.toBeNull();
    }
  });

  it("completing one leaves the other's cookie in place, and the other then completes", async () => {
    const owner = await createUser();
    const sources = await twoSources(owner);
    const browser = new Browser();
    const tasksCallback = await callbackOf(owner, sources.tasks, browser);
    const tasksBinding = flowCookies(browser);
    expect(tasksBinding.size).toBe(1);
    const notesCallback = await callbackFromIssuer(owner, sources.notes, "frank-at-notes", browser);
    expect(flowCookies(browser).size).toBe(2);

    // The second finishes first: only its own cookie is cleared.
    await expectConnected(await browser.get(notesCallback.href));
    expect(flowCookies(browser)).toEqual(tasksBinding);

    await expectConnected(await browser.get(tasksCallback));
    expect(flowCookies(browser).size).toBe(0);
    expect((await authorizationOf(owner, sources.tasks)).status).toBe("connected");
  });

  it("names each flow's cookie by its state: bounded, cookie-safe, with the binding cookie's attributes", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const browser = new Browser();
    await callbackOf(owner, source.id, browser); // signs this browser in
    const opened = await browser.get(await connectLink(owner, source.id));
    expect(opened.status).toBe(302);
    const bindings = opened.headers.getSetCookie().filter((line) => line.startsWith("__Host-mcpe-upstream-flow"));
    expect(bindings).toHaveLength(1);
    expect(bindings[0]).toMatch(
      /^__Host-mcpe-upstream-flow-[0-9a-f]{16}=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=600$/,
    );
    expect(flowCookies(browser).size).toBe(2);
  });

  it("a callback whose state is absent, over-long or malformed reads no cookie and is refused", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const browser = new Browser();
    const callback = new URL(await callbackOf(owner, source.id, browser));
    const code = callback.searchParams.get("code")!;
    const state = callback.searchParams.get("state")!;
    for (const bad of [undefined, "", `${state}${"a".repeat(200)}`, `${state}/..`, `${state};`]) {
      const url = new URL("/oauth/upstream/callback", callback);
      url.searchParams.set("code", code);
      if (bad !== undefined) url.searchParams.set("state", bad);
      const refused = await browser.get(url.href);
      expect(refused.status, String(bad)).toBe(404);
      expect(await refused.text()).toContain("unknown, expired or already completed");
    }
    // None of those touched the real flow's binding: it still completes.
    await expectConnected(await browser.get(callback.href));
  });
});

describe("connects in progress per user", () => {
  it(`at most ${MAX_OPEN_FLOWS} at once: the next is refused with when to retry, and one finishing or expiring makes room`, async () => {
    const owner = await createUser();
    const neighbour = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const { source: neighbourSource } = await registerOAuthTasksSource(neighbour);
    const browser = new Browser();
    const firstCallback = await callbackOf(owner, source.id, browser);
    for (let started = 1; started < MAX_OPEN_FLOWS; started++) await connectLink(owner, source.id);

    const refused = await api<{ error: { code: string; message: string; retry_after_ms?: number } }>(
      owner,
      "POST",
      `/api/sources/${source.id}/authorize`,
      { body: {} },
    );
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    expect(refused.body.error.message).toContain(`${MAX_OPEN_FLOWS} connects in progress`);
    expect(refused.body.error.retry_after_ms).toBeGreaterThan(0);
    // The browser's connect link is refused the same way, on a page.
    const page = await browser.get(`/oauth/upstream/connect?source_id=${source.id}`);
    expect(page.status).toBe(429);
    expect(await page.text()).toContain(`${MAX_OPEN_FLOWS} connects in progress`);
    // Another user's connects are not counted against this one.
    await connectLink(neighbour, neighbourSource.id);

    // Completing one makes room for one.
    await expectConnected(await browser.get(firstCallback));
    await connectLink(owner, source.id);
    expect((await api(owner, "POST", `/api/sources/${source.id}/authorize`, { body: {} })).status).toBe(429);
    // Expired ones do not count.
    await env.DB.prepare("UPDATE upstream_oauth_flows SET expires_at = ? WHERE user_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), owner.id)
      .run();
    await connectLink(owner, source.id);
  });

  it(`starts sent at once cannot pass the limit together: ${MAX_OPEN_FLOWS} of 15 start, the others are refused with when to retry`, async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);

    expectCapHeld(await startsAtOnce(owner, source.id, 15));
    expect(await openFlowsInD1(owner.id)).toBe(MAX_OPEN_FLOWS);
  });

  it("a start refused at the limit leaves a connected source as it was: its calls still go through", async () => {
    const { owner, source, tokens } = await connectedTasksSource();
    expectCapHeld(await startsAtOnce(owner, source.id, MAX_OPEN_FLOWS + 2));
    const rowBefore = await env.DB.prepare("SELECT * FROM source_authorizations WHERE source_id = ?").bind(source.id).first();

    // A start that passed the first count and then met the limit at the insert, with a patch that
    // would end the connection: the flow is refused, and the patch with it.
    const refused = await insertFlow(
      openDb(env.DB),
      {
        stateHash: randomSecret(),
        startHash: randomSecret(),
        userId: owner.id,
        sourceId: source.id,
        secrets: "unused",
        scope: null,
        returnTo: "page",
        expiresAt: new Date(Date.now() + FLOW_TTL_MS).toISOString(),
      },
      {
        status: "needs_authorization",
        tokens: null,
        tokenExpiresAt: null,
        lastError: "connect: overwritten",
        updatedAt: new Date().toISOString(),
      },
      MAX_OPEN_FLOWS,
      new Date().toISOString(),
    );
    expect(refused).toMatchObject({ inserted: false, open: { count: MAX_OPEN_FLOWS } });
    expect(await env.DB.prepare("SELECT * FROM source_authorizations WHERE source_id = ?").bind(source.id).first()).toEqual(rowBefore);
    expect(await openFlowsInD1(owner.id)).toBe(MAX_OPEN_FLOWS);

    expect((await authorizationOf(owner, source.id)).status).toBe("connected");
    expect(await storedTokens(owner.id, source.id)).toEqual(tokens);
    const listed = await callThroughGateway(owner, `${source.slug}__list_tasks`);
    expect(listed.isError, textOf(listed)).toBeFalsy();
  });
});

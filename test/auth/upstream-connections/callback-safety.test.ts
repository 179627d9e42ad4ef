/**
 * The callback's confused-deputy protections: a flow is single use, expires, and completes only in
 * the browser that opened its link, signed in as the user who started it — so a callback replayed,
 * or swapped between users, connects nothing. And no token leaves the Worker: not in any REST
 * answer, admin tool output or audit record.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { Browser } from "../../helpers/oauth";
import { api } from "../../helpers/rest";
import {
  authorizationOf,
  callbackOf,
  connectedTasksSource,
  publishGatewayClientDocument,
  registerOAuthTasksSource,
  storedTokens,
} from "../../helpers/upstream-oauth";
import { createUser } from "../../helpers/users";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

describe("the callback", () => {
  it("completes once: replayed, it is refused and changes nothing", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const browser = new Browser();
    const callback = await callbackOf(owner, source.id, browser);
    expect((await browser.get(callback)).status).toBe(200);
    const connected = await storedTokens(owner.id, source.id);

    const replay = await browser.get(callback);
    expect(replay.status).toBe(404);
    expect(await replay.text()).toContain("already completed");
    expect(await storedTokens(owner.id, source.id)).toEqual(connected);
  });

  it("swapped between users, it is refused: neither source is connected, and the flow is spent", async () => {
    const alice = await createUser();
    const mallory = await createUser();
    const { source: aliceSource } = await registerOAuthTasksSource(alice);
    const { source: mallorySource } = await registerOAuthTasksSource(mallory);
    const aliceBrowser = new Browser();
    const malloryBrowser = new Browser();
    const aliceCallback = await callbackOf(alice, aliceSource.id, aliceBrowser);
    const malloryCallback = await callbackOf(mallory, mallorySource.id, malloryBrowser);

    // Mallory's code and state, opened by Alice (signed in, with her own flow's cookie): refused.
    const swapped = await aliceBrowser.get(malloryCallback);
    expect(swapped.status).toBe(403);
    expect(await swapped.text()).toContain("started in another browser or by another account");
    // And Alice's, opened by Mallory.
    expect((await malloryBrowser.get(aliceCallback)).status).toBe(403);
    for (const [user, id] of [
      [alice, aliceSource.id],
      [mallory, mallorySource.id],
    ] as const) {
      expect((await authorizationOf(user, id)).status).toBe("needs_authorization");
      expect(await storedTokens(user.id, id)).toBeNull();
    }
    // The refused flows are spent: their rightful browsers cannot complete them afterwards.
    expect((await aliceBrowser.get(aliceCallback)).status).toBe(404);
  });

  it("opened in another browser of the same user, it is refused, even when that browser binds a connect of its own", async () => {
    const owner = await createUser();
    const { source: first } = await registerOAuthTasksSource(owner);
    const { source: second } = await registerOAuthTasksSource(owner);
    const here = new Browser();
    const elsewhere = new Browser();
    const callback = await callbackOf(owner, first.id, here);
    // The other browser, signed in as the owner, binds another flow: its cookie is no binding of this one.
    await callbackOf(owner, second.id, elsewhere);
    const [otherBinding] = [...elsewhere.jar.cookies].filter(([name]) => name.startsWith("__Host-mcpe-upstream-flow"));
    expect(otherBinding).toBeDefined();
    // Nor is it under this flow's name: the value must be this flow's own secret.
    const [thisName] = [...here.jar.cookies.keys()].filter((name) => name.startsWith("__Host-mcpe-upstream-flow"));
    elsewhere.jar.cookies.set(thisName!, otherBinding![1]);

    const refused = await elsewhere.get(callback);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("started in another browser or by another account");
    expect((await authorizationOf(owner, first.id)).status).toBe("needs_authorization");
    expect(await storedTokens(owner.id, first.id)).toBeNull();
  });

  it("an expired flow is refused", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const browser = new Browser();
    const callback = await callbackOf(owner, source.id, browser);
    await env.DB.prepare("UPDATE upstream_oauth_flows SET expires_at = ? WHERE source_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), source.id)
      .run();
    expect((await browser.get(callback)).status).toBe(404);
    expect((await authorizationOf(owner, source.id)).status).toBe("needs_authorization");
  });

  it("keeps the PKCE verifier and the state only sealed or hashed at rest", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const callback = new URL(await callbackOf(owner, source.id, new Browser()));
    const row = await env.DB.prepare("SELECT * FROM upstream_oauth_flows WHERE source_id = ?")
      .bind(source.id)
      .first<Record<string, string>>();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(callback.searchParams.get("state")!);
    expect(stored).not.toContain("code_challenge");
    expect(row!["secrets"]).toMatch(/^v1\./);
  });
});

describe("no token leaves the Worker", () => {
  it("not in REST answers, admin tool output or audit records", async () => {
    const { owner, source, tokens } = await connectedTasksSource();
    const secrets = [tokens.access_token, tokens.refresh_token!];

    const answers: string[] = [];
    for (const path of [
      `/api/sources/${source.id}`,
      "/api/sources",
      `/api/sources/${source.id}/health`,
      `/api/sources/${source.id}/authorization`,
      "/health",
    ]) {
      answers.push(JSON.stringify((await api(owner, "GET", path)).body));
    }
    const gateway = await connectGateway(owner);
    for (const name of ["gateway_list_sources", "gateway_source_health"])
      answers.push(JSON.stringify(await gateway.callTool({ name, arguments: {} })));
    const listed = await gateway.callTool({ name: `${source.slug}__list_tasks`, arguments: {} });
    answers.push(textOf(listed), JSON.stringify(listed));
    await gateway.close();
    const { results } = await env.DB.prepare("SELECT payload FROM audit_log WHERE user_id = ?").bind(owner.id).all<{ payload: string }>();
    answers.push(...results.map((row) => row.payload));
    const rows = JSON.stringify(await env.DB.prepare("SELECT * FROM source_authorizations WHERE source_id = ?").bind(source.id).all());
    for (const secret of secrets) {
      for (const answer of answers) expect(answer).not.toContain(secret);
      expect(rows, "sealed at rest").not.toContain(secret);
    }
  });
});

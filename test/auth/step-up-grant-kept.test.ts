/**
 * A step-up never loses the grant in hand (issue 22): Allow on a step-up's consent page issues a
 * code, and the client's earlier grant for the same resource keeps working until that code is
 * exchanged — an app that never exchanges it (closed tab, crash) can still do what it could — and
 * ends then. Neither way logs a "refresh token replayed" warning: nothing was replayed.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { clearTokenCache } from "../helpers/isolate";
import { workerFetch } from "../helpers/mcp";
import {
  authorizeInBrowser,
  authorizeUrl,
  Browser,
  type IssuedTokens,
  LOOPBACK_REDIRECT,
  ORIGIN,
  pkce,
  registerClient,
  tokenRequest,
} from "../helpers/oauth";
import { legacyPost } from "../helpers/rpc";
import { createUser, type TestUser } from "../helpers/users";

let warnings: string[];

beforeEach(() => {
  warnings = [];
  vi.spyOn(console, "warn").mockImplementation((line: unknown) => {
    warnings.push(String(line));
  });
});
afterEach(() => vi.restoreAllMocks());

function replayWarnings(): string[] {
  return warnings.filter((line) => line.includes("replayed"));
}

function callTool(token: string, name: string, args: Record<string, unknown> = {}, path = "/mcp/tasks"): Promise<Response> {
  const call = { id: 1, method: "tools/call", params: { name, arguments: args } };
  return workerFetch(`${ORIGIN}${path}`, legacyPost(token, "2025-11-25", call));
}

function refresh(refreshToken: string, clientId: string): Promise<Response> {
  return tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
}

/** One authorization of `clientId` in `browser` (consent answered with everything offered): the code and its verifier. */
async function authorize(browser: Browser, user: TestUser, clientId: string, scope: string, resource = `${ORIGIN}/mcp/tasks`) {
  const { verifier, challenge } = await pkce();
  const { callback, consentShown } = await authorizeInBrowser(browser, authorizeUrl({ clientId, scope, challenge, resource }), user);
  const code = callback.searchParams.get("code");
  expect(code, `a code came back (${callback.search})`).toBeTruthy();
  return { code: code!, verifier, consentShown };
}

async function exchange(clientId: string, code: string, verifier: string): Promise<IssuedTokens> {
  const fields = { grant_type: "authorization_code", code, client_id: clientId, redirect_uri: LOOPBACK_REDIRECT, code_verifier: verifier };
  const res = await tokenRequest(fields);
  expect(res.status).toBe(200);
  return res.json<IssuedTokens>();
}

/**
 * A client signed in with tasks:read only, whose tokens have been refreshed twice (so its reuse
 * record knows a previous token), and the browser it signed in with.
 */
async function readOnlyClient(): Promise<{ user: TestUser; clientId: string; browser: Browser; tokens: IssuedTokens }> {
  const user = await createUser();
  const clientId = await registerClient();
  const browser = new Browser();
  const first = await authorize(browser, user, clientId, "tasks:read");
  let tokens = await exchange(clientId, first.code, first.verifier);
  for (let round = 0; round < 2; round++) {
    const res = await refresh(tokens.refresh_token, clientId);
    expect(res.status).toBe(200);
    tokens = await res.json<IssuedTokens>();
  }
  expect((await callTool(tokens.access_token, "list_tasks")).status).toBe(200);
  return { user, clientId, browser, tokens };
}

describe("a step-up whose code is never exchanged", () => {
  it("leaves the earlier access and refresh tokens working, with no replay warning", async () => {
    const { user, clientId, browser, tokens } = await readOnlyClient();
    const stepUp = await authorize(browser, user, clientId, "tasks:read tasks:write");
    expect(stepUp.consentShown, "more scopes than before: the consent page asks").toBe(true);
    // The app closed before it could exchange stepUp.code.

    clearTokenCache();
    expect((await callTool(tokens.access_token, "list_tasks")).status, "the access token in hand still reads").toBe(200);
    const refreshed = await refresh(tokens.refresh_token, clientId);
    expect(refreshed.status, "the refresh token in hand still refreshes").toBe(200);
    const next = await refreshed.json<IssuedTokens>();
    expect(next.scope).toBe("tasks:read");
    expect((await callTool(next.access_token, "list_tasks")).status).toBe(200);
    expect(replayWarnings()).toEqual([]);
  });
});

describe("a step-up whose code is exchanged", () => {
  it("ends the earlier grant then, and only then; the new one writes; no replay warning", async () => {
    const { user, clientId, browser, tokens } = await readOnlyClient();
    const stepUp = await authorize(browser, user, clientId, "tasks:read tasks:write");
    clearTokenCache();
    expect((await callTool(tokens.access_token, "list_tasks")).status, "before the exchange, the old grant works").toBe(200);

    const stepped = await exchange(clientId, stepUp.code, stepUp.verifier);
    expect(stepped.scope.split(" ").sort()).toEqual(["tasks:read", "tasks:write"]);
    clearTokenCache();
    expect((await callTool(tokens.access_token, "list_tasks")).status, "the old access token is revoked").toBe(401);
    const old = await refresh(tokens.refresh_token, clientId);
    expect(old.status).toBe(400);
    expect((await old.json<{ error: string }>()).error).toBe("invalid_grant");
    const [userId, grantId] = tokens.refresh_token.split(":");
    expect(await env.OAUTH_KV.get(`mcpe-refresh-issued:${userId}:${grantId}`), "the ended grant's reuse record is gone").toBeNull();

    const added = await callTool(stepped.access_token, "add_task", { title: "after the step-up" });
    expect(added.status).toBe(200);
    expect(replayWarnings()).toEqual([]);
  });

  it("ends only that client's grant for that resource: its grant for another resource and other clients' grants stay", async () => {
    const { user, clientId, browser, tokens } = await readOnlyClient();
    const rag = await authorize(browser, user, clientId, "rag:read", `${ORIGIN}/mcp/rag`);
    const ragTokens = await exchange(clientId, rag.code, rag.verifier);
    const otherClient = await registerClient();
    const other = await authorize(browser, user, otherClient, "tasks:read");
    const otherTokens = await exchange(otherClient, other.code, other.verifier);

    const stepUp = await authorize(browser, user, clientId, "tasks:read tasks:write");
    await exchange(clientId, stepUp.code, stepUp.verifier);
    clearTokenCache();
    expect((await callTool(tokens.access_token, "list_tasks")).status).toBe(401);
    expect((await callTool(ragTokens.access_token, "rag_list_documents", {}, "/mcp/rag")).status).toBe(200);
    expect((await callTool(otherTokens.access_token, "list_tasks")).status).toBe(200);
  });

  it("two step-ups in a row: the first exchanged, then the second — the second's exchange ends the first's grant too", async () => {
    const { user, clientId, browser, tokens } = await readOnlyClient();
    const first = await authorize(browser, user, clientId, "tasks:read tasks:write");
    const second = await authorize(browser, user, clientId, "tasks:read tasks:write");
    const firstTokens = await exchange(clientId, first.code, first.verifier);
    const secondTokens = await exchange(clientId, second.code, second.verifier);
    clearTokenCache();
    expect((await callTool(tokens.access_token, "list_tasks")).status).toBe(401);
    expect((await callTool(firstTokens.access_token, "list_tasks")).status).toBe(401);
    expect((await callTool(secondTokens.access_token, "list_tasks")).status).toBe(200);
    expect(replayWarnings()).toEqual([]);
  });
});

/// <reference lib="dom" />
// (page.evaluate callbacks run in the browser: they use DOM types.)
/**
 * MCP client libraries nobody here wrote sign in to /mcp/tasks as their users do — through the
 * Worker's sign-in and consent pages in headless Chromium, taking the consent page's defaults —
 * and then write a task through their own API: the official TypeScript SDK 1.x (`auth()`), the
 * Vercel AI SDK (`@ai-sdk/mcp`) and mcp-remote (the stdio proxy of Claude Desktop and Cursor).
 * A person who unticks tasks:write gets the 403 `insufficient_scope` step-up on the first add_task.
 * docs/clients.md has the other libraries measured by hand; decision 0054 says why a first sign-in
 * asks for every scope of the server's tools.
 */
import { createMCPClient, auth as aiSdkAuth } from "@ai-sdk/mcp";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbackPage, codeOf, McpRemote, RecordingOAuthProvider, SigningInPerson, taskTitles } from "./helpers/client-libraries";
import { type ConsoleBrowser, startConsoleBrowser } from "./helpers/console-browser";

const USER = "clientlibs";

let run: ConsoleBrowser | undefined;
/** Set-up failures are thrown by every test, so they count as failures with their message. */
let setupError: unknown;

beforeAll(async () => {
  try {
    run = await startConsoleBrowser("client-libraries", USER);
  } catch (error) {
    setupError = error;
  }
});

afterAll(async () => {
  await run?.stop();
});

function test(name: string, body: (run: ConsoleBrowser) => Promise<void>): void {
  it(name, async () => {
    if (setupError) throw setupError;
    await body(run!);
    expect(run!.pageErrors, "nothing but loopback was reached").toEqual([]);
  });
}

/** Every scope of the tasks server's tools, ticked: what a first sign-in at /mcp/tasks asks for and offers. */
const TASKS_DEFAULTS = [
  { scope: "tasks:read", ticked: true },
  { scope: "tasks:write", ticked: true },
];

/** The official SDK 1.x signed in at /mcp/tasks with `untick` left out on the consent page. */
async function officialSdkSignedIn(run: ConsoleBrowser, person: SigningInPerson, untick: readonly string[] = []) {
  const serverUrl = new URL(`${run.base}/mcp/tasks`);
  const callback = await callbackPage();
  const provider = new RecordingOAuthProvider(callback.url, "Official SDK 1.x client");
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: "sdk-auth-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    return client;
  };
  await expect(connect(), "the first connect needs a sign-in").rejects.toThrow(/Unauthorized/);
  const consent = await person.authorize(provider.lastAuthorizationUrl(), untick);
  expect(await auth(provider, { serverUrl, authorizationCode: codeOf(consent.callback) })).toBe("AUTHORIZED");
  await callback.close();
  return { provider, consent, client: await connect() };
}

describe("MCP client libraries sign in with the consent page's defaults and can write", () => {
  test("the official TypeScript SDK 1.x auth(): asked for tasks:read tasks:write, granted both, add_task lands", async (run) => {
    const person = new SigningInPerson(run);
    const { provider, consent, client } = await officialSdkSignedIn(run, person);
    const result = await client.callTool({ name: "add_task", arguments: { title: "written by the official SDK" } });
    expect(result.isError).toBeFalsy();
    expect(await taskTitles(run)).toContain("written by the official SDK");
    // Because the sign-in asked for the write scope and the consent page's defaults granted it.
    expect(consent.asked).toEqual(["tasks:read", "tasks:write"]);
    expect(consent.offered).toEqual(TASKS_DEFAULTS);
    expect(provider.tokens()?.scope).toBe("tasks:read tasks:write");
    await client.close();
    await person.close();
  });

  test("the Vercel AI SDK (@ai-sdk/mcp): its own auth() signs in with the defaults and add_task lands", async (run) => {
    const person = new SigningInPerson(run);
    const serverUrl = `${run.base}/mcp/tasks`;
    const callback = await callbackPage();
    const provider = new RecordingOAuthProvider(callback.url, "AI SDK client");
    const connect = () => createMCPClient({ transport: { type: "http", url: serverUrl, authProvider: provider } });
    await expect(connect(), "the first connect needs a sign-in").rejects.toThrow(/Unauthorized/);
    const consent = await person.authorize(provider.lastAuthorizationUrl());
    expect(await aiSdkAuth(provider, { serverUrl, authorizationCode: codeOf(consent.callback) })).toBe("AUTHORIZED");
    await callback.close();

    const client = await connect();
    const result = await client.callTool({ name: "add_task", arguments: { title: "written by the AI SDK" } });
    expect(result.isError).toBeFalsy();
    expect(await taskTitles(run)).toContain("written by the AI SDK");
    expect(consent.asked).toEqual(["tasks:read", "tasks:write"]);
    expect(consent.offered).toEqual(TASKS_DEFAULTS);
    await client.close();
    await person.close();
  });

  test("mcp-remote (Claude Desktop, Cursor): the browser it opens signs in with the defaults, and add_task lands", async (run) => {
    const person = new SigningInPerson(run);
    const remote = new McpRemote(`${run.base}/mcp/tasks`);
    try {
      const initialize = remote.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "desktop-app", version: "1" },
      });
      const consent = await person.authorize(await remote.nextOpenedUrl(0));
      expect(consent.asked).toEqual(["tasks:read", "tasks:write"]);
      expect(consent.offered).toEqual(TASKS_DEFAULTS);
      // The browser landed on mcp-remote's own loopback callback, which exchanged the code.
      expect(consent.callback.pathname).toBe("/oauth/callback");
      expect((await initialize.answer).result).toBeDefined();
      remote.notify("notifications/initialized");

      const call = await remote.request("tools/call", { name: "add_task", arguments: { title: "written through mcp-remote" } }).answer;
      expect(call.error).toBeUndefined();
      expect(call.result?.isError).toBeFalsy();
      expect(await taskTitles(run)).toContain("written through mcp-remote");
      expect(remote.openedUrls(), "one sign-in was enough").toHaveLength(1);
    } finally {
      await remote.stop();
      await person.close();
    }
  });
});

describe("a person who unticks tasks:write gets the step-up, as before", () => {
  test("the official SDK 1.x: the first add_task is answered 403 insufficient_scope naming tasks:write, and nothing is written", async (run) => {
    const person = new SigningInPerson(run);
    const { provider, client } = await officialSdkSignedIn(run, person, ["tasks:write"]);
    const token = provider.tokens()?.access_token;
    expect(provider.tokens()?.scope).toBe("tasks:read");

    // The raw answer, as the library sees it.
    const raw = await fetch(`${run.base}/mcp/tasks`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add_task", arguments: { title: "never written" } },
      }),
    });
    expect(raw.status).toBe(403);
    const challenge = raw.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="tasks:write"');
    expect(challenge).toContain(`resource_metadata="${run.base}/.well-known/oauth-protected-resource/mcp/tasks"`);

    // The SDK 1.x refreshes with the same scope and gives up rather than sending the person back (docs/clients.md).
    await expect(client.callTool({ name: "add_task", arguments: { title: "never written" } })).rejects.toThrow(/403/);
    expect(await taskTitles(run)).not.toContain("never written");
    await client.close();
    await person.close();
  });

  test("mcp-remote: the first add_task's 403 sends the person back to consent; after Allow the same call lands", async (run) => {
    const person = new SigningInPerson(run);
    const remote = new McpRemote(`${run.base}/mcp/tasks`);
    try {
      const initialize = remote.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "desktop-app", version: "1" },
      });
      await person.authorize(await remote.nextOpenedUrl(0), ["tasks:write"]);
      expect((await initialize.answer).result).toBeDefined();
      remote.notify("notifications/initialized");

      const call = remote.request("tools/call", { name: "add_task", arguments: { title: "written after the step-up" } });
      // The 403 insufficient_scope made mcp-remote open /authorize again, asking for tasks:write too.
      const stepUp = await remote.nextOpenedUrl(1);
      expect(stepUp.searchParams.get("scope")?.split(" ")).toContain("tasks:write");
      expect(await taskTitles(run)).not.toContain("written after the step-up");
      const consent = await person.authorize(stepUp);
      expect(consent.offered).toContainEqual({ scope: "tasks:write", ticked: true });

      const answer = await call.answer;
      expect(answer.error).toBeUndefined();
      expect(answer.result?.isError).toBeFalsy();
      expect(await taskTitles(run)).toContain("written after the step-up");
    } finally {
      await remote.stop();
      await person.close();
    }
  });
});

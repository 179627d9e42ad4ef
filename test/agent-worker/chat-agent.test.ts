/**
 * The chat agent's own Worker, under test with the main Worker beside it (vitest.config.ts,
 * agent-worker project): chats go in through the main Worker's public /api/chat, across the AGENT
 * binding, and each user's ChatAgent is inspected in place.
 * - the agent Worker answers nothing but its binding: its own fetch is a 404 for every route;
 * - what crosses the binding is the caller's principal, never their token: the token is nowhere in
 *   the object's storage, a principal with anything more is refused, and a principal alone (no
 *   token anywhere) is enough for the agent to use the main Worker's MCP tools as that user;
 * - a user's chat reaches only their own ChatAgent, and an object refuses another user's message;
 * - the object connects MCP lazily, keeps the connection while warm and closes it on DELETE and
 *   on the idle alarm; it keeps the newest 100 messages.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChatAgent } from "../../durable-objects/chat-agent.do";
import { openMcpConnections } from "../../workers/agent/mcp-tool-loader";
import { type PrincipalWire, principalWire } from "../../workers/auth/principal-wire";
import { createUser, type TestUser } from "../helpers/users";
import { chat, history, mainFetch } from "./main-worker";

const MCP_URL = "http://localhost/mcp";

// The agent imports its core (the AI SDK, the model providers) on the first message; load it
// before the tests, so the first one is not the one that pays for it.
beforeAll(() => import("../../workers/agent/chat-session"), 60_000);

function agentOf(user: TestUser) {
  return env.CHAT_AGENT.getByName(String(user.id));
}

/** What the main Worker sends for an API token with every scope. */
function principalOf(user: TestUser): PrincipalWire {
  return {
    user: { id: user.id, name: user.name },
    scopes: ["tasks:read", "tasks:write", "rag:read", "rag:write", "thinking", "gateway:read", "gateway:admin", "chat"],
    via: "api_token",
  };
}

describe("the agent Worker has no way in but its binding", () => {
  for (const [method, path] of [
    ["POST", "/api/chat"],
    ["GET", "/api/chat"],
    ["DELETE", "/api/chat"],
    ["POST", "/mcp"],
    ["GET", "/"],
    ["GET", "/health"],
  ] as const) {
    it(`${method} ${path} on the agent Worker itself → 404, even with a valid token`, async () => {
      const user = await createUser();
      const res = await exports.default.fetch(
        new Request(`http://agent.example${path}`, {
          method,
          headers: { ...user.headers, "content-type": "application/json" },
          body: method === "POST" ? "{}" : undefined,
        }),
      );
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: "not_found", message: expect.stringMatching(/no public routes/) } });
    });
  }
});

describe("the principal crosses the binding, never the token", () => {
  it("the user's token is nowhere in the agent's storage after a chat through the main Worker", async () => {
    const user = await createUser();
    expect((await chat(user, "add a task to renew the passport")).tool_calls).toMatchObject([{ name: "add_task", is_error: false }]);
    const found = await runInDurableObject(agentOf(user), async (_instance: ChatAgent, state) => {
      const hits: string[] = [];
      const tables = state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
        )
        .toArray();
      for (const { name } of tables) {
        for (const row of state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray())
          if (JSON.stringify(row).includes(user.token)) hits.push(name);
      }
      for (const [key, value] of await state.storage.list())
        if (JSON.stringify(value ?? null).includes(user.token) || key.includes(user.token)) hits.push(`kv:${key}`);
      return { tables: tables.map((t) => t.name), hits };
    });
    expect(found.tables).toContain("chat_messages");
    expect(found.hits).toEqual([]);
  });

  it("a principal alone — no token anywhere — is enough: the main Worker serves the agent's MCP calls as that user", async () => {
    const user = await createUser();
    const outcome = await exports.ChatService.chat(principalOf(user), { message: "add a task to water the plants" });
    expect(outcome).toMatchObject({ ok: true, result: { warnings: [], tool_calls: [{ name: "add_task", is_error: false }] } });
    // The task is the user's, seen through the main Worker's own REST API with their token.
    const tasks = await mainFetch("/api/tasks", { headers: user.headers });
    expect((await tasks.json<{ tasks: { title: string }[] }>()).tasks.map((task) => task.title)).toEqual(["water the plants"]);
  });

  it("a principal carrying anything more (a token, say) is refused by name, and nothing is stored", async () => {
    const user = await createUser();
    const smuggled = { ...principalOf(user), token: user.token };
    expect(() => principalWire.parse(smuggled)).toThrow(/token/);
    const outcome = await agentOf(user).chat({ principal: smuggled, message: "hello" });
    expect(outcome).toMatchObject({ ok: false });
    expect((await agentOf(user).status()).messages).toBe(0);
  });

  it("the principal's scopes decide what the chat reaches: without the task scopes the task tool is refused", async () => {
    const user = await createUser();
    const outcome = await exports.ChatService.chat(
      { ...principalOf(user), scopes: ["chat", "gateway:read"] },
      { message: "add a task to call mom" },
    );
    expect(outcome).toMatchObject({ ok: true, result: { tool_calls: [{ name: "add_task", is_error: true }] } });
    const tasks = await mainFetch("/api/tasks", { headers: user.headers });
    expect((await tasks.json<{ tasks: unknown[] }>()).tasks).toEqual([]);
  });
});

describe("each user's chat reaches only their own ChatAgent", () => {
  it("turns land in the caller's object; another user's object is untouched", async () => {
    const alice = await createUser();
    const bob = await createUser();
    await chat(alice, "hello");
    await chat(alice, "show my tasks");
    expect((await agentOf(alice).status()).messages).toBe(4);
    expect((await agentOf(bob).status()).messages).toBe(0);
    expect(await history(bob)).toEqual([]);
    expect((await history(alice)).map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("an object refuses a message for another user (a routing bug answers an error, stores nothing)", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const outcome = await agentOf(bob).chat({ principal: principalOf(alice), message: "hello" });
    expect(outcome).toEqual({ ok: false, code: "unavailable", message: "The agent could not answer this message; it has been logged" });
    expect((await agentOf(bob).status()).messages).toBe(0);
    expect((await agentOf(alice).status()).messages).toBe(0);
  });
});

describe("the ChatAgent Durable Object connects lazily and shuts down cleanly", () => {
  it("no MCP connection before the first message; one while warm; none after DELETE", async () => {
    const user = await createUser();
    const agent = agentOf(user);
    expect(await agent.status()).toEqual({ mcp_connected: false, messages: 0, idle_shutdown_scheduled: false });
    // Reading the history does not connect either.
    await history(user);
    expect((await agent.status()).mcp_connected).toBe(false);
    const before = openMcpConnections(MCP_URL);

    await chat(user, "show my tasks");
    expect(await agent.status()).toEqual({ mcp_connected: true, messages: 2, idle_shutdown_scheduled: true });
    expect(openMcpConnections(MCP_URL)).toBe(before + 1);
    await chat(user, "show my tasks");
    expect(openMcpConnections(MCP_URL)).toBe(before + 1); // reused while warm

    const removed = await mainFetch("/api/chat", { method: "DELETE", headers: user.headers });
    expect(removed.status).toBe(204);
    expect(await agent.status()).toEqual({ mcp_connected: false, messages: 0, idle_shutdown_scheduled: false });
    expect(openMcpConnections(MCP_URL)).toBe(before);
  });

  it("the idle alarm's shutdown closes the connection; the next message reconnects", async () => {
    const user = await createUser();
    const agent = agentOf(user);
    const before = openMcpConnections(MCP_URL);
    await chat(user, "show my tasks");
    expect((await agent.status()).mcp_connected).toBe(true);
    expect(openMcpConnections(MCP_URL)).toBe(before + 1);
    const scheduled = await runInDurableObject(agent, async (instance: ChatAgent, state) => {
      // The idle alarm is set about IDLE_SECONDS after the message.
      const alarm = await state.storage.getAlarm();
      const idleAlarmInMs = alarm === null ? null : alarm - Date.now();
      // A message just came in: the alarm firing now (early) must not cut the connection.
      await instance.alarm();
      const stillConnected = (await instance.status()).mcp_connected;
      // As if the 10 minutes had passed since the last message.
      // (lastActivity is private to the object's turns, workers/agent-worker/chat-turns.ts: set as
      // the clock would have left it.)
      Reflect.set(Reflect.get(instance, "turns"), "lastActivity", Date.now() - 601_000);
      await instance.idleShutdown();
      return { idleAlarmSet: idleAlarmInMs !== null && idleAlarmInMs > 590_000 && idleAlarmInMs <= 600_000, stillConnected };
    });
    expect(scheduled).toEqual({ idleAlarmSet: true, stillConnected: true });
    expect((await agent.status()).mcp_connected).toBe(false);
    expect(openMcpConnections(MCP_URL)).toBe(before);
    // The conversation is kept; only connections were closed.
    expect((await agent.status()).messages).toBe(2);
    const again = await chat(user, "show my tasks");
    expect(again.tool_calls).toMatchObject([{ name: "list_tasks", is_error: false }]);
    expect((await agent.status()).mcp_connected).toBe(true);
    await agent.shutdown();
    expect((await agent.status()).mcp_connected).toBe(false);
    expect(openMcpConnections(MCP_URL)).toBe(before);
  });

  it("keeps at most the newest 100 messages (50 turns)", async () => {
    const user = await createUser();
    for (let i = 0; i < 52; i++) await chat(user, `hello ${i}`);
    const messages = await history(user);
    expect(messages).toHaveLength(100);
    expect(messages[0]!.text).toBe("hello 2");
    expect((await agentOf(user).status()).messages).toBe(100);
  }, 60_000);
});

/**
 * Identity comes from authentication, never from the model: identity properties are hidden from
 * the schema the model sees and set from the authenticated user on every call, even when the
 * model supplies another value. Checked against a real MCP server (the fixture's `whoami`, whose
 * schema has a required integer user_id and returns what it received) and end to end: tasks
 * created through chat belong to the caller.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runTurn } from "../../../workers/agent/chat-loop";
import { hideIdentity, injectIdentity } from "../../../workers/agent/identity";
import { loadMcpTools } from "../../../workers/agent/mcp-tool-loader";
import { mcpTool } from "../../../workers/agent/tools";
import { api } from "../../helpers/rest";
import { ScriptedModel } from "../../helpers/scripted-model";
import { createUser } from "../../helpers/users";

const FIXTURE = (JSON.parse(env.TEST_UPSTREAMS) as { fixture: string }).fixture;

describe("identity properties in tool schemas", () => {
  it("are hidden from the model's schema, including from required", () => {
    const shape = hideIdentity({
      type: "object",
      properties: {
        user_id: { type: "integer" },
        userId: { type: "string" },
        user: { type: ["string", "null"] },
        note: { type: "string" },
      },
      required: ["user_id", "note"],
      additionalProperties: false,
    });
    expect(shape.schema).toEqual({
      type: "object",
      properties: { note: { type: "string" } },
      required: ["note"],
      additionalProperties: false,
    });
    expect(shape.keys).toEqual([
      { name: "user_id", type: "number" },
      { name: "userId", type: "string" },
      { name: "user", type: "string" },
    ]);
  });

  it("are set from the identity on every call; model-supplied values are dropped", () => {
    const shape = hideIdentity({ type: "object", properties: { user_id: { type: "integer" }, note: { type: "string" } } });
    expect(injectIdentity({ note: "x", user_id: 999, userId: "999", user: "mallory" }, shape, { userId: 42 })).toEqual({
      note: "x",
      user_id: 42,
    });
    // Without an authenticated identity (a CLI with only a token) the server decides from the token.
    expect(injectIdentity({ note: "x", user_id: 999 }, shape, undefined)).toEqual({ note: "x" });
  });

  it("schemas without identity properties pass through untouched", () => {
    const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
    expect(hideIdentity(schema)).toEqual({ schema, keys: [] });
  });
});

describe("a real MCP tool whose schema has user_id", () => {
  it("receives the authenticated id even when the model supplies another", async () => {
    const loaded = await loadMcpTools({ url: `${FIXTURE}/identity/mcp` });
    expect(loaded.warnings).toEqual([]);
    const tools = loaded.tools.map((spec) => mcpTool(spec, loaded.connection!));
    // A model that insists on acting as someone else.
    const model = new ScriptedModel([{ toolCall: { name: "whoami", input: { user_id: 999, note: "hello" } } }, { text: "done" }]);
    try {
      const output = await runTurn({
        model,
        tools,
        history: [],
        message: "who am I?",
        context: { now: new Date(), timeZone: "UTC", identity: { userId: 42 } },
      });
      expect(output.tool_calls).toHaveLength(1);
      const call = output.tool_calls[0]!;
      expect(call.is_error).toBe(false);
      // What the server actually received:
      expect(JSON.parse(call.result)).toEqual({ user_id: 42, note: "hello" });
      // What the model was shown: no user_id to fill in.
      const shown = model.seen[0]!.tools!.find((tool) => tool.name === "whoami");
      expect(shown).toMatchObject({
        type: "function",
        inputSchema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
      });
    } finally {
      await loaded.connection?.close();
    }
  });
});

describe("tasks created through chat belong to the caller", () => {
  it("each user's chat writes their own tasks; neither sees the other's", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const a = await api<{ tool_calls: { name: string; is_error: boolean }[] }>(alice, "POST", "/api/chat", {
      body: { message: "add a task to water the plants" },
    });
    const b = await api<{ tool_calls: { name: string; is_error: boolean }[] }>(bob, "POST", "/api/chat", {
      body: { message: "add a task to fix the bike" },
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.tool_calls).toMatchObject([{ name: "add_task", is_error: false }]);
    const aliceTasks = await api<{ tasks: { title: string }[] }>(alice, "GET", "/api/tasks");
    const bobTasks = await api<{ tasks: { title: string }[] }>(bob, "GET", "/api/tasks");
    expect(aliceTasks.body.tasks.map((task) => task.title)).toEqual(["water the plants"]);
    expect(bobTasks.body.tasks.map((task) => task.title)).toEqual(["fix the bike"]);
    // Bob's chat cannot reach Alice's task by number: "not found", not her task.
    const aliceId = (await api<{ tasks: { id: number }[] }>(alice, "GET", "/api/tasks")).body.tasks[0]!.id;
    const attempt = await api<{ reply: string; tool_calls: { name: string; is_error: boolean; result: string }[] }>(
      bob,
      "POST",
      "/api/chat",
      {
        body: { message: `delete task ${aliceId}` },
      },
    );
    expect(attempt.body.tool_calls).toMatchObject([{ name: "delete_task", is_error: true }]);
    expect(attempt.body.tool_calls[0]!.result).toMatch(/not found/i);
    expect((await api<{ tasks: unknown[] }>(alice, "GET", "/api/tasks")).body.tasks).toHaveLength(1);
  });
});

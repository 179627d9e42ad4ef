/**
 * Which credentials the agent's MCP requests carry, and that the user's token is never stored:
 * on the Worker's own origin the requesting user's token (per turn), elsewhere the MCP_TOKEN
 * secret; a hanging MCP tool costs one error result, not the chat.
 */
import { getAgentByName } from "agents";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ChatAgent } from "../../durable-objects/chat-agent.do";
import { runTurn } from "../../workers/agent/chat-loop";
import { loadMcpTools } from "../../workers/agent/mcp-tool-loader";
import { mcpTool } from "../../workers/agent/tools";
import { isOwnOrigin, mcpAuthorization } from "../../workers/agent/worker-config";
import { api } from "../helpers/rest";
import { ScriptedModel } from "../helpers/scripted-model";
import { createUser } from "../helpers/users";

const FIXTURE = (JSON.parse(env.TEST_UPSTREAMS) as { fixture: string }).fixture;

type Credentials = Pick<Env, "SELF_ORIGIN" | "MCP_URL" | "MCP_TOKEN">;

function config(values: Partial<Credentials>): Credentials {
  return { SELF_ORIGIN: env.SELF_ORIGIN, MCP_URL: env.MCP_URL, MCP_TOKEN: undefined, ...values };
}

describe("MCP credentials", () => {
  it("MCP_URL on SELF_ORIGIN: the requesting user's own token; MCP_TOKEN is not used there", () => {
    const own = config({ SELF_ORIGIN: "https://edge.example.workers.dev", MCP_URL: "https://edge.example.workers.dev/mcp", MCP_TOKEN: "secret" });
    expect(isOwnOrigin(own)).toBe(true);
    expect(mcpAuthorization(own, "user-token")).toBe("Bearer user-token");
  });

  it("a foreign MCP_URL: the MCP_TOKEN secret when set, else nothing — never the user's token", () => {
    const foreign = config({ SELF_ORIGIN: "https://edge.example.workers.dev", MCP_URL: "https://tools.example.com/mcp", MCP_TOKEN: "secret" });
    expect(isOwnOrigin(foreign)).toBe(false);
    expect(mcpAuthorization(foreign, "user-token")).toBe("Bearer secret");
    expect(mcpAuthorization(config({ ...foreign, MCP_TOKEN: "" }), "user-token")).toBeUndefined();
    // Without SELF_ORIGIN nothing counts as our own origin.
    expect(mcpAuthorization(config({ SELF_ORIGIN: "", MCP_URL: "https://edge.example.workers.dev/mcp" }), "user-token")).toBeUndefined();
    // Same host, other port: another origin.
    expect(isOwnOrigin(config({ SELF_ORIGIN: "http://localhost", MCP_URL: "http://localhost:8080/mcp" }))).toBe(false);
  });

  it("the user's token is never written to the agent's storage", async () => {
    const user = await createUser();
    const res = await api(user, "POST", "/api/chat", { body: { message: "add a task to renew the passport" } });
    expect(res.status).toBe(200);
    const agent = await getAgentByName(env.CHAT_AGENT, String(user.id));
    const found = await runInDurableObject(agent, async (_instance: ChatAgent, state) => {
      const hits: string[] = [];
      // Every SQL table the object can read (the platform's own _cf_ tables are not readable by SQL)…
      const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").toArray();
      for (const { name } of tables) {
        for (const row of state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray()) {
          if (JSON.stringify(row).includes(user.token)) hits.push(name);
        }
      }
      // …and every key-value entry (where Agent state lives).
      for (const [key, value] of await state.storage.list()) {
        if (JSON.stringify(value ?? null).includes(user.token) || key.includes(user.token)) hits.push(`kv:${key}`);
      }
      return { tables: tables.map((t) => t.name), hits };
    });
    expect(found.tables).toContain("chat_messages");
    expect(found.hits).toEqual([]);
  });
});

describe("a hanging MCP tool", () => {
  it("answers with an error result after the call timeout; the turn still ends with a reply", async () => {
    const loaded = await loadMcpTools({ url: `${FIXTURE}/hang/mcp`, callTimeoutMs: 1_500 });
    expect(loaded.warnings).toEqual([]);
    try {
      const model = new ScriptedModel([{ toolCall: { name: "wait_forever", input: {} } }, { text: "That tool did not answer." }]);
      const output = await runTurn({
        model,
        tools: loaded.tools.map((spec) => mcpTool(spec, loaded.connection!)),
        history: [],
        message: "wait",
        context: { now: new Date(), timeZone: "UTC", identity: { userId: 1 } },
      });
      expect(output.tool_calls).toMatchObject([{ name: "wait_forever", is_error: true }]);
      expect(output.tool_calls[0]!.result).toMatch(/^The tool wait_forever failed: .*(timed out|timeout)/i);
      expect(output.reply).toBe("That tool did not answer.");
    } finally {
      await loaded.connection?.close();
    }
  }, 30_000);
});

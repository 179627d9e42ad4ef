/**
 * A hanging MCP tool costs one error result, not the chat. (How the agent's MCP requests go out,
 * and that no token reaches the agent, are tested in the agent Worker itself: test/agent-worker/.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runTurn } from "../../../workers/agent/chat-loop";
import { loadMcpTools } from "../../../workers/agent/mcp-tool-loader";
import { mcpTool } from "../../../workers/agent/tools";
import { ScriptedModel } from "../../helpers/scripted-model";

const FIXTURE = (JSON.parse(env.TEST_UPSTREAMS) as { fixture: string }).fixture;

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

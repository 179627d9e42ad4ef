/**
 * MCP Apps (issue 24): a tool listed with `_meta.ui.visibility` that leaves out "model" exists for
 * an app alone, so the chat agent's loader keeps it out of the model's tools. Checked against a real
 * MCP server (the fixture's /visibility/mcp, one tool per visibility).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadMcpTools } from "../../../workers/agent/mcp-tool-loader";

const FIXTURE = (JSON.parse(env.TEST_UPSTREAMS) as { fixture: string }).fixture;

describe("the agent's MCP tools", () => {
  it("leave out the tools only an app may call, and keep the others", async () => {
    const loaded = await loadMcpTools({ url: `${FIXTURE}/visibility/mcp` });
    await loaded.connection?.close();
    expect(loaded.warnings).toEqual([]);
    expect(loaded.tools.map((tool) => tool.name).sort()).toEqual(["for_both", "for_everyone", "for_the_model"]);
  });
});

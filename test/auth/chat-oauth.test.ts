/**
 * The chat agent for a user signed in through OAuth, as the console is: the agent Worker loads its
 * MCP tools from the main Worker's own /mcp (MCP_URL) for the caller's principal — which carries
 * the resource their token was issued for — so a root-resource token (the console's) gets them,
 * while a token bound to /api alone does not: /mcp refuses that principal as it would the token,
 * and the agent says so and runs on its own tools.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ChatResult } from "../../workers/agent/agent.types";
import { warmUpChat } from "../helpers/chat";
import { workerFetch } from "../helpers/mcp";
import { obtainTokens, ORIGIN } from "../helpers/oauth";
import { createUser } from "../helpers/users";

beforeAll(warmUpChat, 60_000);

async function chat(token: string, message: string): Promise<ChatResult> {
  const res = await workerFetch(`${ORIGIN}/api/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ message, time_zone: "UTC" }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json<ChatResult>();
}

describe("chat with an OAuth access token", () => {
  it("a root-resource token (the console's) gets the MCP tools of the Worker's own /mcp", async () => {
    const user = await createUser();
    const { tokens } = await obtainTokens(user, { scope: "chat tasks:read tasks:write", resource: ORIGIN });
    const result = await chat(tokens.access_token, "add a task to call mom tomorrow");
    expect(result.warnings).toEqual([]);
    expect(result.tool_calls).toMatchObject([{ name: "add_task", is_error: false }]);
  });

  it("a token bound to /api only is refused at /mcp: the agent warns and runs on its own tools", async () => {
    const user = await createUser();
    const { tokens } = await obtainTokens(user, { scope: "chat tasks:read tasks:write", resource: `${ORIGIN}/api` });
    const result = await chat(tokens.access_token, "list my tasks");
    expect(result.warnings.join(" ")).toContain("Could not load tools from the MCP server at http://localhost/mcp");
  });
});

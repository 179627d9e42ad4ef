/**
 * The order of the MCP pipeline's checks (mcp/pipeline.ts): envelope, params, scopes, then the
 * tool-call budget, on every endpoint. A request that breaks two rules gets the earlier one's
 * refusal, and a request any check refuses spends nothing of the caller's budget (tiny in this
 * project: vitest.config.ts), so a caller who is refused for another reason still has all of it.
 */
import { describe, expect, it } from "vitest";
import { CHECKS } from "../../workers/mcp/pipeline";
import { workerFetch } from "../helpers/mcp";
import { startOfWindow, toolCallLimit } from "../helpers/rate-limits";
import { type JsonRpcResponse, legacyPost, rpcResponse } from "../helpers/rpc";
import { createUser, withScopedToken } from "../helpers/users";

const { limit, periodSeconds } = toolCallLimit();
const addTask = (id: number, title: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "add_task", arguments: { title } },
});

function send(path: string, token: string, version: string | undefined, body: unknown): Promise<Response> {
  const init = legacyPost(token, version, {});
  return workerFetch(`http://localhost${path}`, { ...init, body: JSON.stringify(body) });
}

describe("the order of the MCP checks", () => {
  it("is envelope, params, scopes, call budget", () => {
    expect(CHECKS.map((check) => check.name)).toEqual(["envelope", "specParams", "scopes", "callBudget"]);
  });

  it.each(["/mcp/tasks", "/mcp"])("answers an envelope refusal before a scope refusal on %s", async (path) => {
    const readOnly = await withScopedToken(await createUser(), ["tasks:read"]);
    const batch = await send(path, readOnly.token, "2025-11-25", [addTask(1, "in a batch")]);
    expect(batch.status).toBe(400);
    expect((await rpcResponse(batch)).error?.code).toBe(-32600);
  });

  it("answers a params refusal before a scope refusal", async () => {
    const noScopes = await withScopedToken(await createUser(), []);
    const badCursor = { jsonrpc: "2.0", id: 2, method: "resources/list", params: { cursor: 5 } };
    const params = await send("/mcp/tasks", noScopes.token, "2025-11-25", badCursor);
    expect(params.status).toBe(200);
    expect((await rpcResponse(params)).error?.code).toBe(-32602);
  });

  const spendsNothing = "spends nothing of the budget on %s for a request an earlier check refused";
  it.each(["/mcp/tasks", "/mcp"])(spendsNothing, { timeout: 30_000 }, async (path) => {
    const user = await createUser();
    const readOnly = await withScopedToken(user, ["tasks:read"]);
    await startOfWindow(periodSeconds);
    for (let i = 1; i <= limit + 1; i++) {
      expect((await send(path, readOnly.token, "2025-11-25", addTask(i, `no scope ${i}`))).status, `scopes, call ${i}`).toBe(403);
      expect((await send(path, user.token, "2025-11-25", [addTask(i, `batch ${i}`)])).status, `envelope, call ${i}`).toBe(400);
    }
    for (let i = 1; i <= limit; i++) {
      const message: JsonRpcResponse = await rpcResponse(await send(path, user.token, "2025-11-25", addTask(i, `admitted ${i}`)));
      expect(message.result?.["isError"], `admitted call ${i}`).toBeUndefined();
    }
  });
});

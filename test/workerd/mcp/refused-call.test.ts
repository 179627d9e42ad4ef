/**
 * A tools/call the tool-call budget refused is framed by mcp-edge itself (mcp/refusal-answer.ts),
 * per protocol revision, without building the SDK server. Each case compares that answer's
 * JSON-RPC message with the SDK's own for the same request, served with the refusal in the tool
 * context (`callRefused`: every tool answers it instead of running) — the path a request takes
 * when its framing is left to the SDK's checks. A request the SDK would refuse first is left to it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../../workers/lib/errors";
import { loadMcpServers } from "../../../workers/mcp-servers";
import { serveWithSdk } from "../../../workers/mcp/hosting";
import { classifyPost, forwardPost, type McpPost } from "../../../workers/mcp/post";
import { answerRefusedCall } from "../../../workers/mcp/refusal-answer";
import type { McpServerDefinition } from "../../../workers/mcp/server-definition";
import type { ToolContext } from "../../../workers/mcp/tool";
import { createServices } from "../../../workers/services";
import { fullAccess } from "../../helpers/access";
import { modernPost, rpcRequest, rpcResponse } from "../../helpers/rpc";
import { createUser } from "../../helpers/users";

const tasks = (await loadMcpServers()).find((definition) => definition.name === "tasks")!;
const refusal = new AppError("rate_limited", "Rate limit reached: 2 per 10 s; retry after 4 s", { details: { retry_after_ms: 3_500 } });
const CALL = { name: "add_task", arguments: { title: "never written" } };

/** A 2026-07-28 tools/call as its client sends it, with the Host a network request carries. */
function modernCall(headers: Record<string, string> = {}): Request {
  const request = new Request("http://localhost/mcp/tasks", modernPost("t", "tools/call", CALL, headers));
  request.headers.set("host", "localhost");
  return request;
}

async function postOf(request: Request): Promise<McpPost> {
  return classifyPost(request, await request.text());
}

async function context(): Promise<ToolContext> {
  const user = await createUser();
  const authUser = { id: user.id, name: user.name };
  return { user: authUser, services: createServices(env, () => undefined), access: fullAccess(authUser) };
}

/** Both answers to one request: framed here, and by the SDK through the tool wrapper. */
async function bothAnswers(definition: McpServerDefinition, request: () => Request) {
  const ctx = await context();
  const post = await postOf(request());
  const call = post.calls[0]!;
  const direct = answerRefusedCall({ kind: "call", call, error: refusal }, post, definition);
  const sdk = await serveWithSdk(forwardPost(post), definition, { ...ctx, callRefused: refusal }, { parsedBody: post.body });
  const listed = await ctx.services.tasks.list(ctx.user.id, { status: "all", sort_by: "created", limit: 10 });
  return { direct, sdk, listed: listed.tasks };
}

describe("a refused tools/call framed without the SDK", () => {
  it.each([undefined, "2025-06-18", "2025-11-25"])("is the message the SDK sends, as JSON (MCP-Protocol-Version %s)", async (version) => {
    const request = () => rpcRequest("/mcp/tasks", "t", version, { method: "tools/call", params: CALL });
    const { direct, sdk, listed } = await bothAnswers(tasks, request);
    expect(direct?.status).toBe(sdk.status);
    expect(direct?.headers.get("content-type")).toBe("application/json");
    const message = await rpcResponse(direct!);
    expect(message).toEqual(await rpcResponse(sdk));
    expect(message.result).toMatchObject({ isError: true, _meta: { error: { code: "rate_limited", retry_after_ms: 3_500 } } });
    expect(listed).toEqual([]);
  });

  it("is the message the SDK sends to a 2026-07-28 client, with that revision's result fields", async () => {
    const { direct, sdk } = await bothAnswers(tasks, () => modernCall());
    expect(direct?.status).toBe(sdk.status);
    const message = await rpcResponse(direct!);
    expect(message).toEqual(await rpcResponse(sdk));
    expect(message.result).toMatchObject({ isError: true, resultType: "complete" });
  });

  it("leaves to the SDK a request it refuses before any tool runs, and a tool it does not serve", async () => {
    const ctx = await context();
    const mismatched = await postOf(modernCall({ "mcp-name": "list_tasks" }));
    expect(answerRefusedCall({ kind: "call", call: mismatched.calls[0]!, error: refusal }, mismatched, tasks)).toBeUndefined();
    const sseOnly = await postOf(rpcRequest("/mcp/tasks", "t", "2025-11-25", { method: "tools/call", params: CALL }, "text/event-stream"));
    expect(answerRefusedCall({ kind: "call", call: sseOnly.calls[0]!, error: refusal }, sseOnly, tasks)).toBeUndefined();
    const unknownCall = { method: "tools/call", params: { name: "no_such_tool", arguments: {} } };
    const unknown = await postOf(rpcRequest("/mcp/tasks", "t", "2025-11-25", unknownCall));
    expect(answerRefusedCall({ kind: "call", call: unknown.calls[0]!, error: refusal }, unknown, tasks)).toBeUndefined();
    const served = await serveWithSdk(forwardPost(unknown), tasks, { ...ctx, callRefused: refusal }, { parsedBody: unknown.body });
    const sdk = await rpcResponse(served);
    expect(JSON.stringify(sdk)).not.toContain("rate_limited");
  });
});

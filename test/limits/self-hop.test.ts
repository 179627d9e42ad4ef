/**
 * One tool call, one unit, across the gateway's hop to its own Worker. A source on the Worker's own
 * origin (here /mcp/tasks) is called through the SELF binding, whose request authenticates with the
 * source's stored credentials and reaches the tool-call limit again. The gateway has already spent
 * the caller's unit, so it marks the SELF request, and the SelfCalls entry point (reachable only
 * through the Worker's own bindings) lets a marked call of that same user through unspent. The
 * mark is trusted only there: the same header on a request from outside, or in a source's stored
 * headers, spends as usual. The limits are tiny in this project (vitest.config.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TOOL_CALL_COUNTED_FOR_HEADER, selfRoutedFetch } from "../../workers/mcp-client/self-routed-fetch";
import { registerTasksSource, storeOwnGatewaySource } from "../helpers/gateway";
import { workerFetch } from "../helpers/mcp";
import { countRows } from "../helpers/db";
import { startOfWindow, toolCallLimit } from "../helpers/rate-limits";
import { type JsonRpcResponse, legacyPost, rpcResponse } from "../helpers/rpc";
import { createUser, type TestUser } from "../helpers/users";

const { limit, periodSeconds } = toolCallLimit();

type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };

const addTask = (title: string, name = "add_task") => ({ id: 1, method: "tools/call", params: { name, arguments: { title } } });

function resultOf(message: JsonRpcResponse): ToolResult {
  expect(message.error, JSON.stringify(message)).toBeUndefined();
  return message.result as ToolResult;
}

/** One add_task on `path` as `user` from outside the Worker, with `headers` added; its tool result. */
async function callFromOutside(user: TestUser, path: string, title: string, name = "add_task", headers: Record<string, string> = {}): Promise<ToolResult> {
  const init = legacyPost(user.token, "2025-06-18", addTask(title, name));
  return resultOf(await rpcResponse(await workerFetch(`http://localhost${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } })));
}

/** The gateway name of a new source on the Worker's own /mcp/tasks, owned by `owner` and acting as `tokenUser`. */
async function ownTasksSource(owner: TestUser, tokenUser: TestUser, extraHeaders: { name: string; value: string }[] = []): Promise<string> {
  const mcpEnvVars = [{ name: "Authorization", value: `Bearer ${tokenUser.token}`, secret: true }, ...extraHeaders.map((header) => ({ ...header, secret: false }))];
  const { status, body } = await registerTasksSource(owner, tokenUser, { mcp_env_vars: mcpEnvVars });
  expect(status, JSON.stringify(body)).toBe(201);
  return `${body.source.slug}__add_task`;
}

/** How many more tool calls `user` may make in this window: calls /mcp/tasks until one is refused. */
async function unitsLeft(user: TestUser): Promise<number> {
  for (let made = 0; made <= limit; made++) {
    const result = await callFromOutside(user, "/mcp/tasks", `probe ${made}`);
    if (result.isError) {
      expect(result.content[0]?.text).toMatch(/^rate_limited: /);
      return made;
    }
  }
  throw new Error(`${limit + 1} calls in one window were all admitted`);
}

function expectRefused(result: ToolResult): void {
  expect(result.isError).toBe(true);
  expect(result.content[0]?.text).toMatch(/^rate_limited: Rate limit reached: /);
}

describe("a gateway call of a source on the Worker's own origin", () => {
  it("costs the caller one unit when the source acts as the caller: the whole budget runs through it, the next call is refused", { timeout: 30_000 }, async () => {
    const user = await createUser();
    const name = await ownTasksSource(user, user);
    await startOfWindow(periodSeconds);
    for (let i = 1; i <= limit; i++) expect((await callFromOutside(user, "/mcp", `through ${i}`, name)).isError, `call ${i}`).toBeUndefined();
    expectRefused(await callFromOutside(user, "/mcp", "refused", name));
    expect(await countRows("tasks", user.id)).toBe(limit);
  });

  it("costs one unit of each user when the source acts as another user", { timeout: 30_000 }, async () => {
    const [caller, tokenUser] = [await createUser(), await createUser()];
    const name = await ownTasksSource(caller, tokenUser);
    await startOfWindow(periodSeconds);
    const calls = 2;
    for (let i = 1; i <= calls; i++) expect((await callFromOutside(caller, "/mcp", `through ${i}`, name)).isError, `call ${i}`).toBeUndefined();
    expect(await unitsLeft(caller)).toBe(limit - calls);
    expect(await unitsLeft(tokenUser)).toBe(limit - calls);
  });

  it("cannot carry a mark of its own: registering the header is refused by name", async () => {
    const owner = await createUser();
    const { status, body } = await registerTasksSource(owner, owner, {
      mcp_env_vars: [{ name: TOOL_CALL_COUNTED_FOR_HEADER, value: String(owner.id), secret: false }],
    });
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toContain(`mcp_env_vars ${TOOL_CALL_COUNTED_FOR_HEADER}: this header is set by the gateway itself`);
  });

  it("replaces a mark a source stored before the header was refused, so the source's user still pays", { timeout: 30_000 }, async () => {
    const [caller, tokenUser] = [await createUser(), await createUser()];
    const placeholder = "x-stored-before";
    const name = await ownTasksSource(caller, tokenUser, [{ name: placeholder, value: String(tokenUser.id) }]);
    // As a row written before registration refused the header would hold it.
    const slug = name.split("__")[0]!;
    await env.DB.prepare("UPDATE sources SET mcp_env_vars = replace(mcp_env_vars, ?, ?) WHERE user_id = ? AND slug = ?")
      .bind(`"${placeholder}"`, `"${TOOL_CALL_COUNTED_FOR_HEADER}"`, caller.id, slug)
      .run();
    await startOfWindow(periodSeconds);
    expect((await callFromOutside(caller, "/mcp", "through", name)).isError).toBeUndefined();
    expect(await unitsLeft(tokenUser)).toBe(limit - 1);
  });
});

describe("the mark outside the gateway's own hop", () => {
  it("is not trusted on a request from outside: each call still spends a unit", { timeout: 30_000 }, async () => {
    const user = await createUser();
    const mark = { [TOOL_CALL_COUNTED_FOR_HEADER]: String(user.id) };
    await startOfWindow(periodSeconds);
    for (let i = 1; i <= limit; i++) {
      const path = i % 2 === 0 ? "/mcp" : "/mcp/tasks";
      expect((await callFromOutside(user, path, `marked ${i}`, "add_task", mark)).isError, `call ${i} on ${path}`).toBeUndefined();
    }
    expectRefused(await callFromOutside(user, "/mcp/tasks", "refused", "add_task", mark));
    expectRefused(await callFromOutside(user, "/mcp", "refused", "add_task", mark));
  });

  it("is removed from a SELF request the gateway did not mark itself, so that request spends", { timeout: 30_000 }, async () => {
    const user = await createUser();
    const unmarked = selfRoutedFetch(env);
    await startOfWindow(periodSeconds);
    for (let i = 1; i <= limit + 1; i++) {
      const init = legacyPost(user.token, "2025-06-18", addTask(`self ${i}`));
      const headers = { ...(init.headers as Record<string, string>), [TOOL_CALL_COUNTED_FOR_HEADER]: String(user.id) };
      const result = resultOf(await rpcResponse(await unmarked("http://localhost/mcp/tasks", { ...init, headers })));
      if (i <= limit) expect(result.isError, `call ${i}`).toBeUndefined();
      else expectRefused(result);
    }
  });
});

describe("a source stored before registration refused this gateway as a source", () => {
  // Before the SelfCalls entry point refused /mcp, a call of loop__loop__add_task hopped gateway →
  // SELF /mcp → gateway → SELF /mcp → add_task, every hop marked as already counted: one unit, three
  // gateway calls and a task. Now the first hop is refused: one unit, a typed error, nothing made.
  it("answers the typed error after one hop, for the one unit its call spent", { timeout: 30_000 }, async () => {
    const user = await createUser();
    await storeOwnGatewaySource(user, "stateless");
    await startOfWindow(periodSeconds);
    const result = await callFromOutside(user, "/mcp", "looped", "loop__loop__add_task");
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/^protocol: .*a gateway source cannot be this gateway/);
    expect(await countRows("tasks", user.id)).toBe(0);
    expect(await unitsLeft(user)).toBe(limit - 1);
  });
});

/**
 * A tool call through the gateway spends one unit of the caller's budget, at the gateway, with no
 * exception (decision 0057). Its source is another deployment — here the upstream Worker
 * (test/upstreams/upstream-worker.ts), this same Worker on another origin with rate limiters of its
 * own — which counts its own caller, the user the source's credentials name, as any upstream would.
 * The limits are tiny in this project, at the gateway and at the upstream (vitest.config.ts).
 */
import { describe, expect, it } from "vitest";
import { countRows } from "../helpers/db";
import { registerTasksSource, storeOwnOriginSource } from "../helpers/gateway";
import { workerFetch } from "../helpers/mcp";
import { startOfWindow, toolCallLimit } from "../helpers/rate-limits";
import { type JsonRpcResponse, legacyPost, rpcResponse } from "../helpers/rpc";
import { createUser, type TestUser } from "../helpers/users";
import { UPSTREAM_ORIGIN } from "../upstreams/upstream-origin";

const { limit, periodSeconds } = toolCallLimit();
/** Long enough for the longest sequence below (about a dozen requests) to be counted in one window. */
const SEQUENCE_MS = 8_000;

type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };

const addTask = (title: string, name = "add_task") => ({ id: 1, method: "tools/call", params: { name, arguments: { title } } });

function resultOf(message: JsonRpcResponse): ToolResult {
  expect(message.error, JSON.stringify(message)).toBeUndefined();
  return message.result as ToolResult;
}

/** One add_task at `url` as `user`; its tool result. The Worker under test is called in-process, the upstream over the test network. */
async function call(user: TestUser, url: string, title: string, name = "add_task"): Promise<ToolResult> {
  const init = legacyPost(user.token, "2025-06-18", addTask(title, name));
  const send = url.startsWith(UPSTREAM_ORIGIN) ? fetch : workerFetch;
  return resultOf(await rpcResponse(await send(url, init)));
}

const atGateway = (user: TestUser, title: string, name: string) => call(user, "http://localhost/mcp", title, name);

/** How many more tool calls `user` may make in this window at `origin`: calls its /mcp/tasks until one is refused. */
async function unitsLeft(user: TestUser, origin = "http://localhost"): Promise<number> {
  for (let made = 0; made <= limit; made++) {
    const result = await call(user, `${origin}/mcp/tasks`, `probe ${made}`);
    if (result.isError) {
      expect(result.content[0]?.text).toMatch(/^rate_limited: /);
      return made;
    }
  }
  throw new Error(`${limit + 1} calls in one window were all admitted at ${origin}`);
}

/** The gateway name of add_task on a new source on the upstream Worker, owned by `owner` and acting as `tokenUser`. */
async function upstreamTasksSource(owner: TestUser, tokenUser: TestUser): Promise<string> {
  const { status, body } = await registerTasksSource(owner, tokenUser);
  expect(status, JSON.stringify(body)).toBe(201);
  return `${body.source.slug}__add_task`;
}

describe("a gateway call of a source on another Worker", () => {
  it("spends one unit of the caller's budget at the gateway: the whole budget runs through it, the next call is refused", async () => {
    const user = await createUser();
    const name = await upstreamTasksSource(user, user);
    await startOfWindow(periodSeconds, SEQUENCE_MS);
    for (let i = 1; i <= limit; i++) expect((await atGateway(user, `through ${i}`, name)).isError, `call ${i}`).toBeUndefined();
    const refused = await atGateway(user, "refused", name);
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/^rate_limited: Rate limit reached: /);
    expect(await unitsLeft(user)).toBe(0);
    expect(await countRows("tasks", user.id)).toBe(limit);
  });

  it("spends one unit per call at the gateway, no more: after limit - 1 calls one is left", async () => {
    const user = await createUser();
    const name = await upstreamTasksSource(user, user);
    await startOfWindow(periodSeconds, SEQUENCE_MS);
    for (let i = 1; i < limit; i++) expect((await atGateway(user, `through ${i}`, name)).isError, `call ${i}`).toBeUndefined();
    expect(await unitsLeft(user)).toBe(1);
  });

  it("is counted by the upstream Worker for the user the source's credentials name, and by the gateway for the caller", async () => {
    const [caller, tokenUser] = [await createUser(), await createUser()];
    const name = await upstreamTasksSource(caller, tokenUser);
    await startOfWindow(periodSeconds, SEQUENCE_MS);
    const calls = 2;
    for (let i = 1; i <= calls; i++) expect((await atGateway(caller, `through ${i}`, name)).isError, `call ${i}`).toBeUndefined();
    expect(await unitsLeft(tokenUser, UPSTREAM_ORIGIN)).toBe(limit - calls);
    // The gateway's own budgets: the caller paid there, the credentials' user did not.
    expect(await unitsLeft(caller)).toBe(limit - calls);
    expect(await unitsLeft(tokenUser)).toBe(limit);
  });
});

describe("a source stored on the Worker's own origin before registration refused it", () => {
  it("answers url_refused for the one unit its call spent; nothing runs", async () => {
    const user = await createUser();
    const { slug } = await storeOwnOriginSource(user, "http://localhost/mcp/tasks", "stateless");
    await startOfWindow(periodSeconds, SEQUENCE_MS);
    const result = await atGateway(user, "refused", `${slug}__add_task`);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/^url_refused: url http:\/\/localhost is this Worker's own origin/);
    expect(await countRows("tasks", user.id)).toBe(0);
    expect(await unitsLeft(user)).toBe(limit - 1);
  });
});

/**
 * The per-user tool-call rate limit (TOOL_CALL_LIMITER; tiny in this project: vitest.config.ts) on
 * every serving path: the built-in fast path, the SDK (2026-07-28 and 2025-03-26), and on the
 * gateway /mcp both a built-in tool (SDK) and a source tool (the gateway's call fast path). For each:
 * a user's calls up to the limit run, the next is refused with the documented isError shape and
 * runs nothing (no task row, no outbox event, the upstream never called), another user is served
 * at the same moment, and the budget comes back once the window the hint names has passed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { registerTasksSource } from "../helpers/gateway";
import { callOk, connect, textOf, workerFetch } from "../helpers/mcp";
import { countRows } from "../helpers/db";
import { sleep, startOfWindow, toolCallLimit } from "../helpers/rate-limits";
import { createUser, type TestUser, withScopedToken } from "../helpers/users";
import { type JsonRpcResponse, legacyPost, modernPost, rpcResponse } from "../helpers/rpc";

const { limit, periodSeconds } = toolCallLimit();

type Send = (title: string) => Promise<Response>;

interface ServingPath {
  name: string;
  /** A function sending one add_task call as `caller`, and the user whose task it writes (a source's token user). */
  prepare(caller: TestUser): Promise<{ send: Send; writesAs: TestUser }>;
  /** How an admitted call is answered: the fast paths answer JSON, the SDK an SSE stream. */
  admittedType: string;
}

function post(path: string, init: RequestInit): Promise<Response> {
  return workerFetch(`http://localhost${path}`, init);
}

const call = (title: string, name = "add_task") => ({ id: 1, method: "tools/call", params: { name, arguments: { title } } });

const PATHS: ServingPath[] = [
  {
    name: "built-in fast path (/mcp/tasks, 2025-06-18)",
    prepare: async (caller) => ({
      send: (title) => post("/mcp/tasks", legacyPost(caller.token, "2025-06-18", call(title))),
      writesAs: caller,
    }),
    admittedType: "application/json",
  },
  {
    name: "SDK (/mcp/tasks, 2026-07-28)",
    prepare: async (caller) => ({
      send: (title) => post("/mcp/tasks", modernPost(caller.token, "tools/call", { name: "add_task", arguments: { title } })),
      writesAs: caller,
    }),
    admittedType: "application/json",
  },
  {
    name: "SDK (/mcp/tasks, 2025-03-26)",
    prepare: async (caller) => ({
      send: (title) => post("/mcp/tasks", legacyPost(caller.token, "2025-03-26", call(title))),
      writesAs: caller,
    }),
    admittedType: "text/event-stream",
  },
  {
    name: "gateway built-in (/mcp, SDK)",
    prepare: async (caller) => ({ send: (title) => post("/mcp", legacyPost(caller.token, "2025-06-18", call(title))), writesAs: caller }),
    admittedType: "text/event-stream",
  },
  {
    name: "gateway source tool (/mcp, call fast path)",
    // The source acts as another user, whose own tool-call budget pays for the upstream side.
    prepare: async (caller) => {
      const tokenUser = await createUser();
      const { status, body } = await registerTasksSource(caller, tokenUser);
      expect(status).toBe(201);
      const name = `${body.source.slug}__add_task`;
      return { send: (title) => post("/mcp", legacyPost(caller.token, "2025-06-18", call(title, name))), writesAs: tokenUser };
    },
    admittedType: "application/json",
  },
];

type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string }[];
  _meta?: Record<string, unknown>;
  structuredContent?: unknown;
};

function resultOf(message: JsonRpcResponse): ToolResult {
  expect(message.error, JSON.stringify(message)).toBeUndefined();
  return message.result as ToolResult;
}

function expectRateLimited(result: ToolResult): number {
  expect(result.isError).toBe(true);
  expect(result.content[0]?.text).toMatch(
    new RegExp(`^rate_limited: Rate limit reached: at most ${limit} tool calls per ${periodSeconds} s for each user; retry after \\d+ s$`),
  );
  const error = (result._meta?.["error"] ?? {}) as { code?: string; retry_after_ms?: number; details?: Record<string, unknown> };
  expect(error).toMatchObject({ code: "rate_limited", details: { budget: "tool_calls", limit, period_seconds: periodSeconds } });
  expect(error.retry_after_ms).toBeGreaterThan(0);
  expect(error.retry_after_ms).toBeLessThanOrEqual(periodSeconds * 1000);
  expect(error.details?.["retry_after_ms"]).toBe(error.retry_after_ms);
  return error.retry_after_ms!;
}

async function titlesOf(user: TestUser): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT title FROM tasks WHERE user_id = ? ORDER BY id").bind(user.id).all<{ title: string }>();
  return results.map((row) => row.title);
}

describe.each(PATHS)("the tool-call limit on the $name", ({ prepare, admittedType }) => {
  it(
    "runs a user's calls up to the limit, refuses the next without running it, and serves another user meanwhile",
    { timeout: 30_000 },
    async () => {
      const [caller, bystander] = [await createUser(), await createUser()];
      const { send, writesAs } = await prepare(caller);
      const other = await prepare(bystander);

      await startOfWindow(periodSeconds);
      for (let i = 1; i <= limit; i++) {
        const res = await send(`admitted ${i}`);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toContain(admittedType);
        expect(resultOf(await rpcResponse(res)).isError, `call ${i}`).toBeUndefined();
      }
      const refused = await send("refused");
      expect(refused.status).toBe(200);
      expectRateLimited(resultOf(await rpcResponse(refused)));

      // The refused call ran nothing: no row, no outbox event (and, for a source, no upstream call).
      expect(await titlesOf(writesAs)).toEqual(Array.from({ length: limit }, (_, i) => `admitted ${i + 1}`));
      expect(await countRows("outbox", writesAs.id)).toBe(limit);

      // Another user, at the same moment, is served.
      const served = await other.send("bystander");
      expect(resultOf(await rpcResponse(served)).isError).toBeUndefined();
      expect(await titlesOf(other.writesAs)).toEqual(["bystander"]);
    },
  );
});

describe("the tool-call budget", () => {
  it("comes back once the window the retry hint names has passed", { timeout: 30_000 }, async () => {
    const user = await createUser();
    const send = (title: string) => post("/mcp/tasks", legacyPost(user.token, "2025-06-18", call(title)));
    let hint: number | undefined;
    // Up to two windows' worth: without aligning to a window, a boundary may fall in the middle.
    for (let i = 0; i <= 2 * limit && hint === undefined; i++) {
      const result = resultOf(await rpcResponse(await send(`try ${i}`)));
      if (result.isError) hint = expectRateLimited(result);
    }
    expect(hint, "never refused").toBeDefined();
    await sleep(hint! + 100);
    expect(resultOf(await rpcResponse(await send("after the window"))).isError).toBeUndefined();
    expect(await titlesOf(user)).toContain("after the window");
  });

  it("is one per user across every MCP endpoint, and another user's is their own", { timeout: 30_000 }, async () => {
    const [user, other] = [await createUser(), await createUser()];
    await startOfWindow(periodSeconds);
    const endpoints = ["/mcp/tasks", "/mcp/thinking", "/mcp/rag", "/mcp"] as const;
    const calls = [
      (u: TestUser) => post("/mcp/tasks", legacyPost(u.token, "2025-06-18", call("on tasks"))),
      (u: TestUser) =>
        post(
          "/mcp/thinking",
          legacyPost(u.token, "2025-06-18", { id: 2, method: "tools/call", params: { name: "reset_thinking", arguments: {} } }),
        ),
      (u: TestUser) =>
        post(
          "/mcp/rag",
          legacyPost(u.token, "2025-06-18", { id: 3, method: "tools/call", params: { name: "rag_list_documents", arguments: {} } }),
        ),
      (u: TestUser) =>
        post("/mcp", legacyPost(u.token, "2025-06-18", { id: 4, method: "tools/call", params: { name: "list_tasks", arguments: {} } })),
    ];
    for (let i = 0; i < limit; i++) {
      const result = resultOf(await rpcResponse(await calls[i % calls.length]!(user)));
      expect(result.isError, endpoints[i % calls.length]).toBeUndefined();
    }
    for (const send of calls) expectRateLimited(resultOf(await rpcResponse(await send(user))));
    for (const send of calls) expect(resultOf(await rpcResponse(await send(other))).isError).toBeUndefined();
  });

  it("is the user's, whichever of their tokens calls", { timeout: 30_000 }, async () => {
    const user = await createUser();
    const secondToken = await withScopedToken(user, ["tasks:write"]);
    await startOfWindow(periodSeconds);
    for (let i = 0; i < limit; i++) {
      const caller = i % 2 === 0 ? user : secondToken;
      expect(
        resultOf(await rpcResponse(await post("/mcp/tasks", legacyPost(caller.token, "2025-06-18", call(`t${i}`))))).isError,
      ).toBeUndefined();
    }
    for (const caller of [user, secondToken]) {
      expectRateLimited(resultOf(await rpcResponse(await post("/mcp/tasks", legacyPost(caller.token, "2025-06-18", call("refused"))))));
    }
    expect(await countRows("tasks", user.id)).toBe(limit);
  });

  it("leaves tools/list, initialize and ping uncounted and unrefused", { timeout: 30_000 }, async () => {
    const user = await createUser();
    await startOfWindow(periodSeconds);
    for (let i = 0; i < 3 * limit; i++) {
      for (const path of ["/mcp/tasks", "/mcp"]) {
        const list = await rpcResponse(await post(path, legacyPost(user.token, "2025-06-18", { id: i, method: "tools/list" })));
        expect((list.result?.["tools"] as unknown[]).length).toBeGreaterThan(0);
      }
      const initialize = {
        id: i,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      };
      expect((await rpcResponse(await post("/mcp/tasks", legacyPost(user.token, undefined, initialize)))).error).toBeUndefined();
      expect(
        (await rpcResponse(await post("/mcp/tasks", legacyPost(user.token, "2025-06-18", { id: i, method: "ping" })))).error,
      ).toBeUndefined();
    }
    // None of that spent the budget: a whole window's worth of calls still runs.
    for (let i = 0; i < limit; i++) {
      expect(
        resultOf(await rpcResponse(await post("/mcp/tasks", legacyPost(user.token, "2025-06-18", call(`t${i}`))))).isError,
      ).toBeUndefined();
    }
  });

  it("is what an SDK client sees as a tool error, with the code and hint in _meta", { timeout: 30_000 }, async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, "2026-07-28");
    await startOfWindow(periodSeconds);
    for (let i = 0; i < limit; i++) await callOk(client, "add_task", { title: `t${i}` });
    const refused = await client.callTool({ name: "add_task", arguments: { title: "refused" } });
    expect(textOf(refused)).toMatch(/^rate_limited: Rate limit reached/);
    expectRateLimited(refused as ToolResult);
    expect(await titlesOf(user)).not.toContain("refused");
    await client.close();
  });
});

describe("a 2025-03-26 batch", () => {
  const batch = (user: TestUser, titles: string[]) =>
    workerFetch("http://localhost/mcp/tasks", {
      method: "POST",
      headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(
        titles.map((title, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "add_task", arguments: { title } } })),
      ),
    });

  it("counts each of its calls: a batch of the whole budget runs, the next call is refused", { timeout: 30_000 }, async () => {
    const user = await createUser();
    await startOfWindow(periodSeconds);
    const titles = Array.from({ length: limit }, (_, i) => `batched ${i}`);
    const res = await batch(user, titles);
    expect(res.status).toBe(200);
    expect((await titlesOf(user)).sort()).toEqual([...titles].sort());
    expectRateLimited(resultOf(await rpcResponse(await post("/mcp/tasks", legacyPost(user.token, "2025-06-18", call("refused"))))));
  });

  it("over the budget is refused whole with 429 and Retry-After, and nothing in it runs", { timeout: 30_000 }, async () => {
    const user = await createUser();
    await startOfWindow(periodSeconds);
    const res = await batch(
      user,
      Array.from({ length: limit + 1 }, (_, i) => `batched ${i}`),
    );
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(periodSeconds);
    const body = (await res.json()) as JsonRpcResponse;
    expect(body).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, data: { code: "rate_limited", budget: "tool_calls", limit } },
    });
    expect(body.error?.message).toMatch(/^Rate limit reached: at most/);
    expect(await countRows("tasks", user.id)).toBe(0);
    expect(await countRows("outbox", user.id)).toBe(0);
  });
});

describe("a refused 2026-07-28 call", () => {
  it(
    "is still checked by the SDK: an Mcp-Name naming another tool is a header mismatch, not a tool result",
    { timeout: 30_000 },
    async () => {
      const user = await createUser();
      await startOfWindow(periodSeconds);
      for (let i = 0; i < limit; i++) await post("/mcp/tasks", legacyPost(user.token, "2025-06-18", call(`t${i}`)));
      const init = modernPost(user.token, "tools/call", { name: "add_task", arguments: { title: "x" } }, { "mcp-name": "delete_task" });
      const res = await post("/mcp/tasks", init);
      expect(res.status).toBe(400);
      expect((await rpcResponse(res)).error?.code).toBe(-32020);
      const ok = await post("/mcp/tasks", modernPost(user.token, "tools/call", { name: "add_task", arguments: { title: "y" } }));
      const result = resultOf(await rpcResponse(ok));
      expectRateLimited(result);
      expect(result).toMatchObject({ resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": { name: "mcp-edge-tasks" } } });
    },
  );
});

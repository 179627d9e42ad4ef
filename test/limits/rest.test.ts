/**
 * The per-user REST limit (API_REQUEST_LIMITER; tiny in this project: vitest.config.ts): a user's
 * /api/* requests up to the limit are served, the next is refused with 429, Retry-After and
 * `{ error: { code: "rate_limited", message, retry_after_ms, details } }` before anything is read
 * or written; another user is served meanwhile; the budget comes back after the hinted wait. REST
 * and tool calls are separate budgets, and /health, OAuth metadata and MCP listings spend neither.
 */
import { describe, expect, it } from "vitest";
import { countRows } from "../helpers/db";
import { workerFetch } from "../helpers/mcp";
import { apiRequestLimit, sleep, startOfWindow, toolCallLimit } from "../helpers/rate-limits";
import { api, type ApiResponse } from "../helpers/rest";
import { createUser, type TestUser } from "../helpers/users";
import { legacyPost, rpcResponse } from "../helpers/rpc";

const { limit, periodSeconds } = apiRequestLimit();

const addTask = (user: TestUser, title: string) => api(user, "POST", "/api/tasks", { body: { title } });

interface RestRefusal {
  error: { code: string; message: string; retry_after_ms: number; details: Record<string, unknown> };
}

function expectRateLimited(res: ApiResponse<unknown>): number {
  expect(res.status).toBe(429);
  const body = res.body as RestRefusal;
  expect(body.error).toMatchObject({ code: "rate_limited", details: { budget: "api_requests", limit, period_seconds: periodSeconds } });
  expect(body.error.message).toMatch(
    new RegExp(`^Rate limit reached: at most ${limit} REST requests per ${periodSeconds} s for each user; retry after \\d+ s$`),
  );
  const wait = body.error.retry_after_ms;
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(periodSeconds * 1000);
  expect(body.error.details["retry_after_ms"]).toBe(wait);
  expect(Number(res.headers.get("retry-after"))).toBe(Math.max(1, Math.ceil(wait / 1000)));
  expect(res.headers.get("access-control-expose-headers")).toContain("Retry-After");
  return wait;
}

async function titlesOf(user: TestUser): Promise<string[]> {
  const res = await api<{ tasks: { title: string }[] }>(user, "GET", "/api/tasks?limit=100");
  return res.body.tasks.map((task) => task.title);
}

describe("the REST limit", () => {
  it(
    "serves a user's requests up to the limit, refuses the next before it writes, and serves another user meanwhile",
    { timeout: 30_000 },
    async () => {
      const [user, other] = [await createUser(), await createUser()];
      await startOfWindow(periodSeconds);
      for (let i = 1; i <= limit; i++) expect((await addTask(user, `admitted ${i}`)).status).toBe(201);
      expectRateLimited(await addTask(user, "refused"));
      // Reads are counted too.
      expectRateLimited(await api(user, "GET", "/api/tasks"));
      // Nothing was written by the refused request: the admitted rows and their outbox events only.
      expect(await countRows("tasks", user.id)).toBe(limit);
      expect(await countRows("outbox", user.id)).toBe(limit);
      expect((await addTask(other, "bystander")).status).toBe(201);
    },
  );

  it("refuses before validation: an invalid body over the limit is refused as rate_limited", { timeout: 30_000 }, async () => {
    const user = await createUser();
    await startOfWindow(periodSeconds);
    for (let i = 0; i < limit; i++) await api(user, "GET", "/api/tasks");
    expectRateLimited(await api(user, "POST", "/api/tasks", { body: { title: 42 } }));
  });

  it("comes back once the Retry-After wait has passed", { timeout: 30_000 }, async () => {
    const user = await createUser();
    let wait: number | undefined;
    // Up to two windows' worth: without aligning to a window, a boundary may fall in the middle.
    for (let i = 0; i <= 2 * limit && wait === undefined; i++) {
      const res = await api(user, "GET", "/api/tasks");
      if (res.status === 429) wait = expectRateLimited(res);
      else expect(res.status).toBe(200);
    }
    expect(wait, "never refused").toBeDefined();
    await sleep(wait! + 100);
    expect((await addTask(user, "after the wait")).status).toBe(201);
    expect(await titlesOf(user)).toContain("after the wait");
  });

  it("is a budget apart from tool calls, and leaves /health, OAuth metadata and MCP listings alone", { timeout: 30_000 }, async () => {
    const user = await createUser();
    await startOfWindow(periodSeconds);
    for (let i = 0; i < limit; i++) await api(user, "GET", "/api/tasks");
    expectRateLimited(await api(user, "GET", "/api/tasks"));

    // The tool-call budget is untouched: a whole window of calls still runs.
    for (let i = 0; i < toolCallLimit().limit; i++) {
      const call = { id: i, method: "tools/call", params: { name: "add_task", arguments: { title: `by MCP ${i}` } } };
      const { result } = await rpcResponse(await workerFetch("http://localhost/mcp/tasks", legacyPost(user.token, "2025-06-18", call)));
      expect(result?.["isError"]).toBeUndefined();
    }
    for (const path of ["/health", "/.well-known/oauth-protected-resource/mcp/tasks", "/.well-known/oauth-authorization-server"]) {
      const res = await workerFetch(`http://localhost${path}`, { headers: user.headers });
      expect(res.status, path).toBe(200);
    }
    const list = await rpcResponse(
      await workerFetch("http://localhost/mcp/tasks", legacyPost(user.token, "2025-06-18", { id: 1, method: "tools/list" })),
    );
    expect(list.error).toBeUndefined();
  });
});

/**
 * GET /api/activity (decision 0060): a person's own tool calls through the gateway, newest first,
 * from the GATEWAY_CALL audit the real queue consumer writes — with the client each call came from
 * (the 2026-07-28 request's client info; a 2025 request's protocol revision only), paged by a
 * keyset cursor that neither repeats nor skips a call when new ones arrive, within the retention,
 * and never another user's calls.
 */
import type { Client } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ActivityCall, ActivityPage } from "../../../workers/activity/activity.schema";
import { until } from "../../helpers/eventually";
import { callOk, connectTo, type Era } from "../../helpers/mcp";
import { api, errorOf } from "../../helpers/rest";
import { createUser, type TestUser, withScopedToken } from "../../helpers/users";

const DAY = 86_400_000;

async function gatewayClient(user: TestUser, era: Era): Promise<Client> {
  return connectTo("/mcp", user.token, { era });
}

async function auditedCalls(user: TestUser): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE user_id = ? AND type = 'GATEWAY_CALL'")
    .bind(user.id)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Waits for the queue consumer to have written `count` of the user's calls. */
async function untilAudited(user: TestUser, count: number): Promise<void> {
  const what = `${count} GATEWAY_CALL rows of ${user.name}`;
  await until(async () => (await auditedCalls(user)) >= count, what, { timeoutMs: 10_000, intervalMs: 50 });
}

async function activity(user: TestUser, query = ""): Promise<ActivityPage> {
  const res = await api<ActivityPage>(user, "GET", `/api/activity${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** An audit row as the consumer writes it, for times and sources a test cannot make by calling. */
async function recordCall(user: TestUser, occurredAt: string, gatewayCall: Record<string, unknown>): Promise<string> {
  const eventId = crypto.randomUUID();
  const envelope = { event_id: eventId, type: "GATEWAY_CALL", version: 1, occurred_at: occurredAt, user_id: user.id, task_id: null };
  const event = { ...envelope, gateway_call: gatewayCall };
  await env.DB.prepare("INSERT INTO audit_log (event_id, type, user_id, occurred_at, payload) VALUES (?, 'GATEWAY_CALL', ?, ?, ?)")
    .bind(event.event_id, user.id, occurredAt, JSON.stringify(event))
    .run();
  return event.event_id;
}

function builtinCall(tool: string): Record<string, unknown> {
  return { source_id: null, source_slug: "builtin:tasks", tool, duration_ms: 1, outcome: "ok" };
}

function newestFirst(calls: readonly ActivityCall[]): boolean {
  return calls.every((call, index) => index === 0 || calls[index - 1]!.at >= call.at);
}

describe("GET /api/activity", () => {
  it("lists a person's own calls, newest first, with the client each came from, and never another user's", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const modern = await gatewayClient(alice, "2026-07-28");
    await callOk(modern, "add_task", { title: "secret-title-activity" });
    await callOk(modern, "list_tasks", {});
    const legacy = await gatewayClient(alice, "2025-11-25");
    await callOk(legacy, "list_tasks", {});
    await callOk(await gatewayClient(bob, "2026-07-28"), "add_task", { title: "Bob's" });
    await untilAudited(alice, 3);
    await untilAudited(bob, 1);

    const mine = await activity(alice);
    expect(mine.calls).toHaveLength(3);
    expect(newestFirst(mine.calls)).toBe(true);
    expect(mine.next_cursor).toBeNull();
    expect(mine.retention_days).toBe(30);
    expect(JSON.stringify(mine)).not.toContain("secret-title-activity");
    const byRevision = (revision: string) => mine.calls.filter((call) => call.client.protocol_version === revision);
    expect(
      byRevision("2026-07-28")
        .map((call) => call.tool)
        .sort(),
    ).toEqual(["add_task", "list_tasks"]);
    expect(byRevision("2026-07-28")[0]).toMatchObject({
      server: "tasks",
      source: null,
      outcome: "ok",
      duration_ms: expect.any(Number),
      client: { name: "mcp-edge-tests", version: "1.0.0", protocol_version: "2026-07-28", oauth_client_id: null },
    });
    // A 2025 client named itself only in initialize, another request: its calls carry the revision alone.
    expect(byRevision("2025-11-25")).toEqual([
      expect.objectContaining({
        tool: "list_tasks",
        client: { name: null, version: null, protocol_version: "2025-11-25", oauth_client_id: null },
      }),
    ]);

    const theirs = await activity(bob);
    expect(theirs.calls.map((call) => call.tool)).toEqual(["add_task"]);
    const aliceIds = new Set(mine.calls.map((call) => call.event_id));
    expect(theirs.calls.some((call) => aliceIds.has(call.event_id))).toBe(false);
  });

  it("pages by a cursor that neither repeats nor skips a call when new calls arrive between pages", async () => {
    const user = await createUser();
    const base = Date.now() - 60_000;
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await recordCall(user, new Date(base + i * 1000).toISOString(), builtinCall(`tool_${i}`)));
    }

    const first = await activity(user, "?limit=2");
    expect(first.calls.map((call) => call.tool)).toEqual(["tool_4", "tool_3"]);
    expect(first.next_cursor).toEqual(expect.any(String));
    // A new call lands on top while the person pages: it shifts no page after the first.
    await recordCall(user, new Date().toISOString(), builtinCall("newer"));
    const second = await activity(user, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.calls.map((call) => call.tool)).toEqual(["tool_2", "tool_1"]);
    const third = await activity(user, `?limit=2&cursor=${second.next_cursor}`);
    expect(third.calls.map((call) => call.tool)).toEqual(["tool_0"]);
    expect(third.next_cursor).toBeNull();
    expect(ids).toHaveLength(5);
  });

  it("shows a source's calls with the source, and nothing older than the retention", async () => {
    const user = await createUser();
    const github = { source_id: 7, source_slug: "github" };
    const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
    await recordCall(user, daysAgo(31), { ...github, tool: "too_old", duration_ms: 5, outcome: "ok" });
    await recordCall(user, daysAgo(29), { ...github, tool: "search_issues", duration_ms: 182, outcome: "timeout" });

    const page = await activity(user);

    expect(page.calls).toEqual([
      {
        event_id: expect.any(String),
        at: expect.any(String),
        server: "github",
        tool: "search_issues",
        source: { id: 7, slug: "github" },
        outcome: "timeout",
        duration_ms: 182,
        client: { name: null, version: null, protocol_version: null, oauth_client_id: null },
      },
    ]);
  });

  it("needs gateway:read, and refuses a cursor it did not issue", async () => {
    const user = await createUser();
    const tasksOnly = await withScopedToken(user, ["tasks:read"]);
    const refused = await api(tasksOnly, "GET", "/api/activity");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="gateway:read"');

    for (const cursor of [btoa('{"o":5}'), btoa('{"t":"yesterday","i":"x"}'), "%%%"]) {
      const res = await api(user, "GET", `/api/activity?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, cursor).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: "invalid_input", details: { field: "cursor" } });
    }
  });

  it("is in /openapi.json", async () => {
    const res = await api<{ paths: Record<string, { get?: { tags?: string[] } }> }>(undefined, "GET", "/openapi.json");
    expect(res.body.paths["/api/activity"]?.get?.tags).toEqual(["activity"]);
  });
});

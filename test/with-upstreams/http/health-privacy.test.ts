/**
 * What health shows to whom. Two users are active — RAG queries, a failed one, a gateway source,
 * events waiting in the outbox — and each of rag_health, /api/rag/health and /health (with their
 * token) shows them only their own figures; anonymous /health shows statuses only: no count,
 * latency or timestamp of anyone's activity.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PIPELINES, type RagHealth } from "../../../workers/rag/rag.schema";
import { registerTasksSource } from "../../helpers/gateway";
import { until } from "../../helpers/eventually";
import { callOk, connect } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { createUser, type TestUser } from "../../helpers/users";

/** A finished query as the query service logs it, at a moment and latency no real query here has. */
async function loggedQuery(user: TestUser, pipeline: string, outcome: "ok" | "error", totalMs: number, startedAt: string): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO rag_query_log (request_id, user_id, pipeline, started_at, outcome, error_code, total_ms, retrieval_ms, generation_ms, tokens_used)
     VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0)`,
  )
    .bind(crypto.randomUUID(), user.id, pipeline, startedAt, outcome, outcome === "ok" ? null : "internal", totalMs)
    .run();
}

/** An event the relay has not delivered for minutes (the queue was down), as the outbox holds it. */
async function stuckEvent(user: TestUser): Promise<void> {
  const createdAt = new Date(Date.now() - 10 * 60_000).toISOString();
  await env.DB.prepare(
    `INSERT INTO outbox (event_id, type, user_id, task_id, payload, created_at, attempts) VALUES (?, 'CREATED', ?, NULL, '{}', ?, 1)`,
  )
    .bind(crypto.randomUUID(), user.id, createdAt)
    .run();
}

async function undeliveredOf(user: TestUser): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM outbox WHERE user_id = ? AND delivered_at IS NULL")
    .bind(user.id)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

function minutesAgo(minutes: number): string {
  return new Date(Date.now() - minutes * 60_000).toISOString();
}

interface HealthBody {
  status: string;
  outbox: { status: string; backlog?: number };
  rag: RagHealth | { status: string; pipelines: { pipeline: string; status: string }[] };
  sources?: { total: number; mine: { slug: string }[] };
}

describe("health privacy", { timeout: 60_000 }, () => {
  it("shows each user only their own figures, and anonymous callers statuses only", async () => {
    const alice = await createUser();
    const bob = await createUser();
    // Alice: three real queries of rag_basic, and an old success of rag_crag only she has.
    const client = await connect("rag", alice.token);
    for (let i = 0; i < 3; i++)
      expect((await client.callTool({ name: "rag_basic", arguments: { query: `question ${i}` } })).isError).toBeFalsy();
    const aliceCragAt = minutesAgo(90);
    await loggedQuery(alice, "rag_crag", "ok", 4_321, aliceCragAt);
    // Bob: a failed rag_colbert query with its own latency and time, a source, stuck events.
    const bobErrorAt = minutesAgo(7);
    await loggedQuery(bob, "rag_colbert", "error", 77_777, bobErrorAt);
    await loggedQuery(bob, "rag_colbert", "ok", 66_666, minutesAgo(8));
    await registerTasksSource(bob, bob, { name: "Bobs Source" });
    // Registering records its tool definitions' approval (TOOL_DEFINITIONS events): let the queue deliver those first.
    await until(async () => (await undeliveredOf(bob)) === 0, "the registration's events delivered");
    await stuckEvent(bob);
    await stuckEvent(bob);

    // rag_health for Alice: her queries, nothing of Bob's.
    const mine = await callOk<RagHealth>(client, "rag_health");
    await client.close();
    const byName = new Map(mine.pipelines.map((p) => [p.pipeline, p]));
    expect(byName.get("rag_basic")).toMatchObject({ queries_last_hour: 3, error_rate: 0 });
    expect(byName.get("rag_basic")!.last_success).not.toBeNull();
    expect(byName.get("rag_crag")).toMatchObject({ queries_last_hour: 0, last_success: aliceCragAt });
    expect(byName.get("rag_colbert")).toMatchObject({
      queries_last_hour: 0,
      error_rate: 0,
      last_success: null,
      last_error: null,
      p50_ms: 0,
      p95_ms: 0,
    });
    expect(mine.last_hour).toMatchObject({ queries: 3, error_rate: 0 });
    // The status words are everyone's: rag_colbert failed in the last hour.
    expect(byName.get("rag_colbert")!.status).toBe("failing");
    expect(JSON.stringify(mine)).not.toMatch(/77777|66666|77_777/);
    expect(JSON.stringify(mine)).not.toContain(bobErrorAt);

    // /api/rag/health for Bob: his queries, nothing of Alice's.
    const bobs = await api<RagHealth>(bob, "GET", "/api/rag/health");
    expect(bobs.status).toBe(200);
    const bobByName = new Map(bobs.body.pipelines.map((p) => [p.pipeline, p]));
    expect(bobByName.get("rag_colbert")).toMatchObject({
      queries_last_hour: 2,
      error_rate: 0.5,
      last_error: bobErrorAt,
      p50_ms: 66_666,
      p95_ms: 77_777,
    });
    expect(bobByName.get("rag_basic")).toMatchObject({ queries_last_hour: 0, last_success: null });
    expect(bobByName.get("rag_crag")).toMatchObject({ last_success: null });
    expect(bobs.body.last_hour).toMatchObject({ queries: 2, error_rate: 0.5 });
    expect(JSON.stringify(bobs.body)).not.toContain(aliceCragAt);

    // Anonymous /health: statuses only.
    const open = await api<HealthBody>(undefined, "GET", "/health");
    expect(open.status).toBe(200);
    expect(Object.keys(open.body).sort()).toEqual(["checked_at", "d1", "outbox", "rag", "status", "version"]);
    expect(open.body.outbox).toEqual({ status: "delayed" });
    expect(open.body.rag).toEqual({
      status: "degraded",
      pipelines: PIPELINES.map((pipeline) => ({ pipeline, status: pipeline === "rag_colbert" ? "failing" : "healthy" })),
      d1: { connected: true, response_time_ms: expect.any(Number) },
      checked_at: expect.any(String),
    });
    const openText = JSON.stringify(open.body);
    for (const secret of [aliceCragAt, bobErrorAt, "bobs_source", "66666", "77777", "queries", "last_success", "backlog", "total"]) {
      expect(openText, secret).not.toContain(secret);
    }

    // /health with a token: the caller's own sources, RAG figures and outbox backlog.
    const aliceHealth = await api<HealthBody>(alice, "GET", "/health");
    expect(aliceHealth.body.outbox).toEqual({ status: "delayed", backlog: 0 });
    expect(aliceHealth.body.sources).toMatchObject({ total: 0, mine: [] });
    expect((aliceHealth.body.rag as RagHealth).last_hour.queries).toBe(3);
    expect(JSON.stringify(aliceHealth.body)).not.toContain("bobs_source");
    const bobHealth = await api<HealthBody>(bob, "GET", "/health");
    expect(bobHealth.body.outbox).toEqual({ status: "delayed", backlog: 2 });
    expect(bobHealth.body.sources).toMatchObject({ total: 1, mine: [{ slug: "bobs_source" }] });
    expect((bobHealth.body.rag as RagHealth).last_hour.queries).toBe(2);
  });
});

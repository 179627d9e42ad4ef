/**
 * The health computation (pure rules: status words over everyone's queries, figures over the
 * caller's), its D1 aggregation, rag_health and /health. Who sees whose figures:
 * test/with-upstreams/http/health-privacy.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { computeRagHealth } from "../../../workers/rag/health.service";
import type { PipelineOutcomes, WindowStats } from "../../../workers/rag/query-log.repo";
import { PIPELINES, type RagHealth } from "../../../workers/rag/rag.schema";
import { callOk, connect, workerFetch } from "../../helpers/mcp";
import { createUser, type TestUser } from "../../helpers/users";

const NOW = new Date("2026-11-21T12:00:00.000Z");
const UP = { connected: true, response_time_ms: 1.5 };

function stats(pipelines: { pipeline: string; queries: number; errors: number }[]): WindowStats {
  return {
    pipelines: pipelines.map((p) => ({
      ...p,
      lastSuccess: null,
      lastError: p.errors > 0 ? "2026-11-21T11:59:00.000Z" : null,
      p50: 20,
      p95: 80,
    })),
    lastSuccess: new Map([["rag_basic", "2026-11-21T11:58:00.000Z"]]),
    total: pipelines.reduce((n, p) => n + p.queries, 0),
    errors: pipelines.reduce((n, p) => n + p.errors, 0),
    p50: 20,
    p95: 80,
  };
}

/** The same queries as everyone's outcomes (the status words). */
function outcomes(pipelines: { pipeline: string; queries: number; errors: number }[]): PipelineOutcomes[] {
  return pipelines.map(({ pipeline, queries, errors }) => ({ pipeline, queries, errors }));
}

/** The caller's queries are everyone's (a single-user deployment). */
function alone(pipelines: { pipeline: string; queries: number; errors: number }[]): [PipelineOutcomes[], WindowStats] {
  return [outcomes(pipelines), stats(pipelines)];
}

describe("computeRagHealth", () => {
  it("is healthy when every pipeline is (idle pipelines included)", () => {
    const health = computeRagHealth(UP, ...alone([{ pipeline: "rag_basic", queries: 120, errors: 0 }]), NOW);
    expect(health.status).toBe("healthy");
    expect(health.pipelines.map((p) => p.pipeline)).toEqual([...PIPELINES]);
    expect(health.pipelines.every((p) => p.status === "healthy")).toBe(true);
    expect(health.pipelines[0]).toMatchObject({ queries_last_hour: 120, error_rate: 0, last_success: "2026-11-21T11:58:00.000Z" });
    expect(health.last_hour).toEqual({ queries: 120, queries_per_minute: 2, error_rate: 0, p50_ms: 20, p95_ms: 80 });
    expect(health.checked_at).toBe(NOW.toISOString());
  });

  it("is degraded when some pipeline errs, and names which", () => {
    const health = computeRagHealth(
      UP,
      ...alone([
        { pipeline: "rag_basic", queries: 100, errors: 10 },
        { pipeline: "rag_crag", queries: 4, errors: 4 },
      ]),
      NOW,
    );
    expect(health.status).toBe("degraded");
    const byName = new Map(health.pipelines.map((p) => [p.pipeline, p]));
    expect(byName.get("rag_basic")).toMatchObject({ status: "degraded", error_rate: 0.1 });
    expect(byName.get("rag_crag")).toMatchObject({ status: "failing", error_rate: 1, last_error: "2026-11-21T11:59:00.000Z" });
    expect(byName.get("rag_colbert")?.status).toBe("healthy");
    expect(health.last_hour.error_rate).toBeCloseTo(14 / 104, 4);
  });

  it("keeps a pipeline healthy below the degraded error rate", () => {
    const health = computeRagHealth(UP, ...alone([{ pipeline: "rag_basic", queries: 100, errors: 4 }]), NOW);
    expect(health.status).toBe("healthy");
  });

  it("is unavailable when every pipeline is failing", () => {
    const health = computeRagHealth(UP, ...alone(PIPELINES.map((pipeline) => ({ pipeline, queries: 2, errors: 2 }))), NOW);
    expect(health.status).toBe("unavailable");
  });

  it("is unavailable when D1 is unreachable", () => {
    const health = computeRagHealth({ connected: false, response_time_ms: 3, error: "D1 down" }, [], undefined, NOW);
    expect(health.status).toBe("unavailable");
    expect(health.d1).toEqual({ connected: false, response_time_ms: 3, error: "D1 down" });
    expect(health.last_hour.queries).toBe(0);
  });

  it("takes the status words from everyone's queries and every figure from the caller's", () => {
    const everyone = outcomes([{ pipeline: "rag_crag", queries: 10, errors: 9 }]);
    const mine = stats([{ pipeline: "rag_basic", queries: 3, errors: 0 }]);
    const health = computeRagHealth(UP, everyone, mine, NOW);
    const byName = new Map(health.pipelines.map((p) => [p.pipeline, p]));
    expect(health.status).toBe("degraded");
    expect(byName.get("rag_crag")).toMatchObject({ status: "failing", queries_last_hour: 0, error_rate: 0, last_error: null });
    expect(byName.get("rag_basic")).toMatchObject({ status: "healthy", queries_last_hour: 3 });
    expect(health.last_hour.queries).toBe(3);
  });
});

async function logQuery(
  user: TestUser,
  pipeline: string,
  outcome: "ok" | "error" | "busy" | "timeout",
  totalMs: number,
  minutesAgo = 1,
): Promise<void> {
  const startedAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  await env.DB.prepare(
    `INSERT INTO rag_query_log (request_id, user_id, pipeline, started_at, outcome, error_code, total_ms, retrieval_ms, generation_ms, tokens_used)
     VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0)`,
  )
    .bind(crypto.randomUUID(), user.id, pipeline, startedAt, outcome, outcome === "ok" ? null : outcome, totalMs)
    .run();
}

describe("rag_health and /health over the query log", () => {
  it("report last-hour latency percentiles, error rates and statuses from D1", async () => {
    const user = await createUser();
    for (let ms = 1; ms <= 20; ms++) await logQuery(user, "rag_basic", "ok", ms * 10);
    await logQuery(user, "rag_basic", "busy", 1);
    await logQuery(user, "rag_colbert", "error", 5);
    await logQuery(user, "rag_colbert", "timeout", 30_000);
    // Outside the window: ignored for rates and percentiles, but still the last success.
    await logQuery(user, "rag_crag", "ok", 9_999, 120);

    const client = await connect("rag", user.token);
    const health = await callOk<RagHealth>(client, "rag_health");
    await client.close();

    expect(health.status).toBe("degraded");
    expect(health.d1.connected).toBe(true);
    const byName = new Map(health.pipelines.map((p) => [p.pipeline, p]));
    // Per pipeline, nearest rank over its own answered queries: rag_basic 10…200 ms (20, busy excluded).
    expect(byName.get("rag_basic")).toMatchObject({ status: "healthy", queries_last_hour: 21, error_rate: 0, p50_ms: 100, p95_ms: 190 });
    expect(byName.get("rag_colbert")).toMatchObject({
      status: "failing",
      queries_last_hour: 2,
      error_rate: 1,
      last_success: null,
      p50_ms: 5,
      p95_ms: 30_000,
    });
    expect(byName.get("rag_crag")).toMatchObject({ status: "healthy", queries_last_hour: 0, p50_ms: 0, p95_ms: 0 });
    expect(byName.get("rag_crag")!.last_success).not.toBeNull();
    // 22 answered queries (busy excluded): 10…200 ms, 5 ms and 30 000 ms.
    expect(health.last_hour.p50_ms).toBe(100);
    expect(health.last_hour.p95_ms).toBe(200);
    expect(health.last_hour.queries).toBe(23);
    expect(health.last_hour.error_rate).toBeCloseTo(2 / 23, 4);

    const res = await workerFetch("http://localhost/health");
    const body = await res.json<{ status: string; rag: { status: string; pipelines: { pipeline: string; status: string }[] } }>();
    expect(res.status).toBe(200);
    expect(body.status).toBe("degraded");
    expect(body.rag.pipelines).toHaveLength(PIPELINES.length);
    expect(body.rag.pipelines.find((p) => p.pipeline === "rag_colbert")).toEqual({ pipeline: "rag_colbert", status: "failing" });
  });
});

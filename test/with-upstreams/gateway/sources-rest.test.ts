/** /api/sources over REST: register → discover, read, update, refresh, delete; owner-scoped; secrets never returned. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { registerTasksSource, type SourceBody, TASKS_URL } from "../../helpers/gateway";
import { api, type ErrorBody } from "../../helpers/rest";
import { createUser } from "../../helpers/users";

describe("/api/sources", () => {
  it("registers the tasks server, discovers its tools and answers id and slug", async () => {
    const owner = await createUser();
    const res = await registerTasksSource(owner, owner, { name: "My Tasks (prod)" });

    expect(res.status).toBe(201);
    expect(res.body.source.id).toBeGreaterThan(0);
    expect(res.body.source.slug).toBe("my_tasks_prod");
    expect(res.body.source.last_discovery_error).toBeNull();
    expect(res.body.tools.map((tool) => tool.gateway_name)).toContain("my_tasks_prod__add_task");
    expect(res.body.source.tool_count).toBe(res.body.tools.length);
  });

  it("POST answers the same {source, tools} shape as GET /api/sources/{id}", async () => {
    const owner = await createUser();
    const created = await api<Record<string, unknown>>(owner, "POST", "/api/sources", {
      body: { name: "Shape", url: TASKS_URL, mcp_env_vars: [{ name: "Authorization", value: `Bearer ${owner.token}` }] },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(["source", "tools"]);
    const id = (created.body["source"] as { id: number }).id;
    const fetched = await api<Record<string, unknown>>(owner, "GET", `/api/sources/${id}`);
    expect(fetched.body).toEqual(created.body);
  });

  it("never returns a secret's value, and stores it encrypted", async () => {
    const owner = await createUser();
    const res = await registerTasksSource(owner, owner, {
      mcp_env_vars: [
        { name: "Authorization", value: `Bearer ${owner.token}`, secret: true },
        { name: "X-Team", value: "blue", secret: false },
      ],
    });
    expect(res.body.source.mcp_env_vars).toEqual([
      { name: "Authorization", secret: true },
      { name: "X-Team", secret: false, value: "blue" },
    ]);
    const listed = await api<{ sources: SourceBody[] }>(owner, "GET", "/api/sources");
    expect(JSON.stringify(listed.body)).not.toContain(owner.token);

    const row = await env.DB.prepare("SELECT mcp_env_vars FROM sources WHERE id = ?")
      .bind(res.body.source.id)
      .first<{ mcp_env_vars: string }>();
    expect(row!.mcp_env_vars).not.toContain(owner.token);
    expect(row!.mcp_env_vars).toMatch(/"value":"v1\./);
  });

  it("does not forward the caller's own token upstream: without env vars the upstream refuses", async () => {
    const owner = await createUser();
    const res = await registerTasksSource(owner, owner, { mcp_env_vars: [] });

    expect(res.status).toBe(201);
    expect(res.body.tools).toEqual([]);
    // Refused with 401 and Protected Resource Metadata: the source waits for its owner to connect an account.
    expect(res.body.source.last_discovery_error).toMatch(/^authorization_required: /);
  });

  it("lists, gets, disables, refreshes and deletes, each scoped to the owner", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    const { body: created } = await registerTasksSource(owner, owner);
    const path = `/api/sources/${created.source.id}`;
    expect(created.tools.length).toBeGreaterThan(0);

    const list = await api<{ sources: SourceBody[]; count: number }>(owner, "GET", "/api/sources");
    expect(list.body.sources.map((source) => source.id)).toEqual([created.source.id]);
    expect((await api<{ sources: SourceBody[] }>(stranger, "GET", "/api/sources")).body.sources).toEqual([]);

    for (const [method, suffix, body] of [
      ["GET", "", undefined],
      ["PATCH", "", { enabled: false }],
      ["POST", "/refresh", undefined],
      ["DELETE", "", undefined],
    ] as const) {
      const res = await api<ErrorBody>(stranger, method, `${path}${suffix}`, body ? { body } : {});
      expect(res.status, `${method} ${suffix}`).toBe(404);
    }

    const disabled = await api<{ source: SourceBody }>(owner, "PATCH", path, { body: { enabled: false } });
    expect(disabled.body.source.enabled).toBe(false);
    const refreshed = await api<{ source: SourceBody; tools: unknown[] }>(owner, "POST", `${path}/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.tools.length).toBe(created.tools.length);

    expect((await api(owner, "DELETE", path)).body).toEqual({ deleted: true, id: created.source.id });
    expect((await api(owner, "GET", path)).status).toBe(404);
  });

  it("keeps slugs unique per owner, not across owners", async () => {
    const first = await createUser();
    const second = await createUser();
    expect((await registerTasksSource(first, first, { name: "Shared" })).status).toBe(201);
    const again = await registerTasksSource(first, first, { name: "shared!" });
    expect(again.status).toBe(409);
    expect((await registerTasksSource(second, second, { name: "Shared" })).status).toBe(201);
  });

  it("refuses link-local and metadata hosts", async () => {
    const owner = await createUser();
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "http://[fe80::1]/mcp",
      "http://metadata.google.internal/computeMetadata/v1",
      "http://[::ffff:169.254.169.254]/",
    ]) {
      const res = await api<ErrorBody>(owner, "POST", "/api/sources", { body: { name: "bad", url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.code, url).toBe("invalid_input");
    }
    const res = await api<ErrorBody>(owner, "POST", "/api/sources", {
      body: { name: "t", url: TASKS_URL, mcp_transport_type: "carrier-pigeon" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("mcp_transport_type");
    expect((await api<{ sources: unknown[] }>(owner, "GET", "/api/sources")).body.sources).toEqual([]);
  });
});

/**
 * Registration rules per transport: stdio sources behind `mcp-edge bridge` (bridge token, process
 * environment, manifest checks and secret marking), sse, the remote header rules, slug
 * uniqueness on rename. Calls go to the real bridge fixture where the behaviour depends on it.
 */
import { describe, expect, it } from "vitest";
import { connectGateway, registerTasksSource, type SourceBody, type SourceDetailBody, sourceRow, TASKS_URL } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api, type ErrorBody, errorOf } from "../../helpers/rest";
import { registerSource, upstreams } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

/** The bridge fixture's variable plus a required one and secret defaults, to exercise every rule. */
const REQUIRING = {
  name: "fixture-stdio",
  command: "node",
  args: ["fixture-stdio.ts"],
  packages: [
    {
      registryType: "npm",
      identifier: "mcp-edge-fixture-stdio",
      transport: { type: "stdio" },
      environmentVariables: [
        { name: "FIXTURE_GREETING", isRequired: true, isSecret: true },
        { name: "FIXTURE_MODE", isRequired: true },
        { name: "FIXTURE_OPTIONAL" },
        { name: "FIXTURE_DEFAULTED", isRequired: true, default: "fine" },
      ],
    },
  ],
};

/** What the running bridge fixture accepts: FIXTURE_GREETING only, marked secret; a secret default that must not be echoed. */
const MANIFEST = {
  name: "fixture-stdio",
  command: "node",
  args: ["fixture-stdio.ts"],
  packages: [
    {
      registryType: "npm",
      identifier: "mcp-edge-fixture-stdio",
      transport: { type: "stdio" },
      environmentVariables: [
        { name: "FIXTURE_GREETING", isRequired: true, isSecret: true },
        { name: "FIXTURE_UNUSED_KEY", isRequired: true, isSecret: true, default: "default-secret-value" },
      ],
    },
  ],
};

function stdio(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { mcp_transport_type: "stdio", bridge_token: upstreams().bridge_token, ...overrides };
}

describe("stdio sources (through mcp-edge bridge)", { timeout: 60_000 }, () => {
  it("checks the manifest's required variables, naming every missing one", async () => {
    const owner = await createUser();
    const res = await registerSource(owner, upstreams().bridge_fixture, stdio({ manifest: REQUIRING, mcp_env_vars: [] }));
    expect(res.status).toBe(400);
    const error = errorOf(res);
    expect(error.code).toBe("invalid_input");
    expect(error.message).toContain("FIXTURE_GREETING");
    expect(error.message).toContain("FIXTURE_MODE");
    expect(error.message).not.toContain("FIXTURE_OPTIONAL");
    expect(error.message).not.toContain("FIXTURE_DEFAULTED");
    expect(error.details).toEqual({ field: "mcp_env_vars" });

    const oneMissing = await registerSource(
      owner,
      upstreams().bridge_fixture,
      stdio({ manifest: REQUIRING, mcp_env_vars: [{ name: "FIXTURE_MODE", value: "x", secret: false }] }),
    );
    expect(oneMissing.status).toBe(400);
    expect(errorOf(oneMissing).message).toMatch(/requires: FIXTURE_GREETING$/);
    expect((await api<{ count: number }>(owner, "GET", "/api/sources")).body.count).toBe(0);
  });

  it("stores manifest-secret variables encrypted even when sent as plain, never returns them or the bridge token, and the process gets them", async () => {
    const owner = await createUser();
    const greeting = `greeting-${crypto.randomUUID()}`;
    const res = await registerSource(
      owner,
      upstreams().bridge_fixture,
      stdio({
        name: "Greeter Plugin",
        manifest: MANIFEST,
        mcp_lifecycle_mode: "singleton",
        mcp_env_vars: [{ name: "FIXTURE_GREETING", value: greeting, secret: false }],
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { source } = res.body;
    expect(source.last_discovery_error).toBeNull();
    expect(source.mcp_transport_type).toBe("stdio");
    expect(source.mcp_env_vars).toEqual([{ name: "FIXTURE_GREETING", secret: true }]);
    expect(source.has_bridge_token).toBe(true);
    // Launch details come from the manifest; the secret's default is not kept.
    expect(source.mcp_command).toBe("node");
    expect(source.mcp_args).toEqual(["fixture-stdio.ts"]);
    expect(JSON.stringify(source.manifest)).not.toContain("default-secret-value");
    expect(JSON.stringify(source.manifest)).toContain('"default":"<redacted>"');
    // Only the name changes: the stored (redacted) manifest still passes its own checks.
    const renamed = await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${source.id}`, {
      body: { name: "Greeter Plugin", mcp_transport_type: "stdio" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(greeting);
    expect(text).not.toContain(upstreams().bridge_token);

    const row = await sourceRow(source.id);
    expect(String(row["mcp_env_vars"])).not.toContain(greeting);
    expect(String(row["bridge_token"])).toMatch(/^v1\./);
    expect(String(row["bridge_token"])).not.toContain(upstreams().bridge_token);

    // The process really received the decrypted value (the bridge accepted the bearer token too).
    const client = await connectGateway(owner);
    const result = await client.callTool({ name: "greeter_plugin__greeting", arguments: {} });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).toBe(greeting);

    const listed = await api<{ sources: SourceBody[] }>(owner, "GET", "/api/sources");
    expect(JSON.stringify(listed.body)).not.toContain(greeting);
  });

  it("seals a stored plain variable when a later manifest marks it secret, and the process still gets it", async () => {
    const owner = await createUser();
    const greeting = `plain-then-secret-${crypto.randomUUID().slice(0, 8)}`;
    const { body: registered } = await registerSource(
      owner,
      upstreams().bridge_fixture,
      stdio({ name: "Late Manifest", mcp_env_vars: [{ name: "FIXTURE_GREETING", value: greeting, secret: false }] }),
    );
    expect(registered.source.mcp_env_vars).toEqual([{ name: "FIXTURE_GREETING", secret: false, value: greeting }]);

    const patched = await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${registered.source.id}`, { body: { manifest: MANIFEST } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.source.mcp_env_vars).toEqual([{ name: "FIXTURE_GREETING", secret: true }]);
    expect(patched.body.source.mcp_command).toBe("node");
    expect(String((await sourceRow(registered.source.id))["mcp_env_vars"])).not.toContain(greeting);

    const result = await (await connectGateway(owner)).callTool({ name: "late_manifest__greeting", arguments: {} });
    expect(textOf(result)).toBe(greeting);

    // A manifest the stored variables do not satisfy is refused, naming what is missing.
    const stricter = structuredClone(MANIFEST);
    stricter.packages[0]!.environmentVariables.push({ name: "FIXTURE_REGION", isRequired: true, isSecret: false });
    const refused = await api<ErrorBody>(owner, "PATCH", `/api/sources/${registered.source.id}`, { body: { manifest: stricter } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("FIXTURE_REGION");
  });

  it("requires a bridge token for stdio, and a wrong one is a discovery error, not a secret leak", async () => {
    const owner = await createUser();
    const missing = await registerSource(owner, upstreams().bridge_fixture, { mcp_transport_type: "stdio" });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).details).toEqual({ field: "bridge_token" });

    const wrong = await registerSource(owner, upstreams().bridge_fixture, stdio({ bridge_token: "not-the-bridge-token-at-all" }));
    expect(wrong.status).toBe(201);
    expect(wrong.body.tools).toEqual([]);
    expect(wrong.body.source.last_discovery_error).toMatch(/^unauthorized: upstream refused the credentials \(HTTP 401\)/);
    expect(wrong.body.source.last_discovery_error).not.toContain("not-the-bridge-token-at-all");
  });

  it("validates variable names by transport and refuses stdio-only fields on remote sources", async () => {
    const owner = await createUser();
    const badEnv = await registerSource(owner, upstreams().bridge_fixture, stdio({ mcp_env_vars: [{ name: "X-Header", value: "v" }] }));
    expect(badEnv.status).toBe(400);
    expect(errorOf(badEnv).message).toContain("X-Header");

    const reserved = await registerTasksSource(owner, owner, { mcp_env_vars: [{ name: "Mcp-Session-Id", value: "x" }] });
    expect(reserved.status).toBe(400);
    expect(errorOf(reserved).message).toContain("set by the gateway itself");

    for (const field of ["bridge_token", "mcp_command", "manifest"] as const) {
      const value = field === "manifest" ? REQUIRING : field === "bridge_token" ? "a-token-of-enough-length" : "node";
      const res = await registerTasksSource(owner, owner, { [field]: value });
      expect(res.status, field).toBe(400);
      expect(errorOf(res).message, field).toContain("stdio sources only");
    }
  });

  it("switching a source to stdio needs a bridge token; leaving stdio drops the token and manifest", async () => {
    const owner = await createUser();
    const {
      body: { source: created },
    } = await registerTasksSource(owner, owner, { name: "Switcher" });
    const path = `/api/sources/${created.id}`;

    const refused = await api<ErrorBody>(owner, "PATCH", path, { body: { mcp_transport_type: "stdio", mcp_env_vars: [] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual({ field: "bridge_token" });

    const toStdio = await api<SourceDetailBody>(owner, "PATCH", path, {
      body: { mcp_transport_type: "stdio", url: upstreams().bridge_fixture, bridge_token: upstreams().bridge_token, mcp_env_vars: [] },
    });
    expect(toStdio.status, JSON.stringify(toStdio.body)).toBe(200);
    expect(toStdio.body.source.has_bridge_token).toBe(true);
    expect(toStdio.body.source.last_discovery_error).toBeNull();
    expect(toStdio.body.tools.map((tool) => tool.name)).toContain("greeting");

    const back = await api<SourceDetailBody>(owner, "PATCH", path, {
      body: {
        mcp_transport_type: "streamable_http",
        url: TASKS_URL,
        mcp_env_vars: [{ name: "Authorization", value: `Bearer ${owner.token}` }],
      },
    });
    expect(back.status).toBe(200);
    expect(back.body.source.has_bridge_token).toBe(false);
    expect((await sourceRow(created.id))["bridge_token"]).toBeNull();
    expect(back.body.tools.map((tool) => tool.name)).toContain("add_task");
  });
});

describe("sse sources and slugs", { timeout: 60_000 }, () => {
  it("registers a legacy SSE upstream and keeps its env vars as headers", async () => {
    const owner = await createUser();
    const res = await registerSource(owner, upstreams().everything_sse, {
      mcp_transport_type: "sse",
      mcp_env_vars: [{ name: "X-Trace", value: "abc", secret: false }],
    });
    expect(res.status).toBe(201);
    expect(res.body.source.mcp_transport_type).toBe("sse");
    expect(res.body.source.last_discovery_error).toBeNull();
    expect(res.body.source.mcp_env_vars).toEqual([{ name: "X-Trace", secret: false, value: "abc" }]);
  });

  it("renaming a source to a slug the owner already has is a 409 that changes nothing", async () => {
    const owner = await createUser();
    await registerTasksSource(owner, owner, { name: "First" });
    const { body: second } = await registerTasksSource(owner, owner, { name: "Second" });
    const clash = await api<ErrorBody>(owner, "PATCH", `/api/sources/${second.source.id}`, { body: { name: "first!" } });
    expect(clash.status).toBe(409);
    expect(clash.body.error.message).toContain("slug first");
    expect((await api<SourceDetailBody>(owner, "GET", `/api/sources/${second.source.id}`)).body.source.slug).toBe("second");

    const renamed = await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${second.source.id}`, { body: { name: "Third One" } });
    expect(renamed.body.source.slug).toBe("third_one");
    const client = await connectGateway(owner);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("third_one__add_task");
    expect(names.some((name) => name.startsWith("second__"))).toBe(false);
  });
});

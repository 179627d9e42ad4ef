/**
 * The original tools provider's registration API, sent as it documents it ("Source Registration":
 * the MCP remote and plugin bodies) with only the URLs, the plugin directory's location and the
 * bridge token changed, registered over REST and called through /mcp against real processes:
 * server-everything over streamable HTTP, and the stdio fixture as the `github` plugin of
 * `mcp-edge bridge --plugins test/upstreams/plugins`. Also the provider's plugin manifest exactly
 * as documented (test/upstreams/provider-plugins), and the 400s that name what is wrong.
 */
import { describe, expect, it } from "vitest";
import { connectGateway, registerTasksSource, type SourceDetailBody, sourceRow, TASKS_URL } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api, type ErrorBody } from "../../helpers/rest";
import { toolNames, upstreams } from "../../helpers/upstreams";
import { createUser, type TestUser } from "../../helpers/users";

/** "MCP Remote Server", as documented (its `// pragma: allowlist secret` comment is not JSON and is left out). */
const REMOTE_BODY = {
  name: "CML MCP Server",
  url: "http://cml-mcp:9000",
  source_type: "mcp",
  description: "Cloudera Machine Learning tools",
  mcp_server_url: "http://cml-mcp:9000",
  mcp_env_vars: {
    API_KEY: "optional-header-value",
  },
};

/** "MCP Plugin (Local)", as documented. */
const PLUGIN_BODY = {
  name: "GitHub MCP",
  url: "mcp://github-plugin",
  source_type: "mcp",
  description: "GitHub operations via MCP",
  mcp_plugin_dir: "/opt/mcp-plugins/github",
  mcp_transport_type: "stdio",
  mcp_runtime_hint: "uvx",
  mcp_lifecycle_mode: "transient",
  mcp_env_vars: {
    GITHUB_TOKEN: "ghp_xxx...",
  },
};

/** "Plugin Manifest (plugin.json)", as documented; test/upstreams/provider-plugins/github/plugin.json holds it. */
const PROVIDER_MANIFEST = {
  name: "@modelcontextprotocol/github",
  version: "1.0.0",
  description: "GitHub MCP server for repository operations",
  packages: [
    {
      name: "default",
      transport_type: "stdio",
      runtime: "uvx",
      command: ["mcp-server-github"],
      environment_variables: [{ name: "GITHUB_TOKEN", description: "GitHub Personal Access Token", required: true, secret: true }],
    },
  ],
};

function register(owner: TestUser, body: Record<string, unknown>) {
  return api<SourceDetailBody>(owner, "POST", "/api/sources", { body });
}

/** The plugin body aimed at a plugins bridge: its URL changed, the bridge's token added. */
function pluginBody(bridgeUrl: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...PLUGIN_BODY, url: bridgeUrl, bridge_token: upstreams().bridge_token, ...changes };
}

function errorOf(res: { body: unknown }): ErrorBody["error"] {
  return (res.body as ErrorBody).error;
}

async function sourceCount(owner: TestUser): Promise<number> {
  return (await api<{ count: number }>(owner, "GET", "/api/sources")).body.count;
}

describe("the provider's remote registration body", { timeout: 60_000 }, () => {
  it("registers with only its URLs changed and is called through /mcp; the header value is a secret", async () => {
    const owner = await createUser();
    const everything = upstreams().everything_http;
    const res = await register(owner, { ...REMOTE_BODY, url: everything, mcp_server_url: everything });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const source = res.body.source;
    expect(source).toMatchObject({
      slug: "cml_mcp_server",
      source_type: "mcp",
      description: "Cloudera Machine Learning tools",
      url: everything,
      mcp_transport_type: "streamable_http",
      mcp_plugin_dir: null,
      mcp_env_vars: [{ name: "API_KEY", secret: true }],
      last_discovery_error: null,
    });
    expect(JSON.stringify(source)).not.toContain("optional-header-value");
    expect(JSON.stringify((await sourceRow(source.id))["mcp_env_vars"])).not.toContain("optional-header-value");

    const client = await connectGateway(owner);
    const echo = await client.callTool({ name: "cml_mcp_server__echo", arguments: { message: "through the provider's body" } });
    expect(echo.isError, textOf(echo)).toBeFalsy();
    expect(textOf(echo)).toContain("through the provider's body");

    const cleared = await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${source.id}`, { body: { description: null } });
    expect(cleared.body.source).toMatchObject({ description: null });
  });

  it("calls mcp_server_url when url differs, and sends an object's values as headers", async () => {
    const owner = await createUser();
    const everything = upstreams().everything_http;
    const res = await register(owner, { ...REMOTE_BODY, url: "http://127.0.0.1:9/not-the-mcp-endpoint", mcp_server_url: everything });
    expect(res.status).toBe(201);
    expect(res.body.source.url).toBe(everything);
    expect(res.body.source.last_discovery_error).toBeNull();

    // The tasks server refuses a call without its bearer token: discovery works only if the object's value became the header.
    const tokenUser = await createUser();
    const tasks = await registerTasksSource(owner, tokenUser, { mcp_env_vars: { Authorization: `Bearer ${tokenUser.token}` } });
    expect(tasks.body.source.url).toBe(TASKS_URL);
    expect(tasks.body.source.last_discovery_error).toBeNull();
    expect(tasks.body.tools.map((t) => t.name)).toContain("add_task");
    expect(tasks.body.source.mcp_env_vars).toEqual([{ name: "Authorization", secret: true }]);
  });
});

describe("the provider's plugin registration body", { timeout: 90_000 }, () => {
  it("registers with only its URL changed: the manifest is read from the bridge and the plugin runs there", async () => {
    const owner = await createUser();
    const res = await register(owner, pluginBody(upstreams().bridge_plugins));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const source = res.body.source;
    expect(source).toMatchObject({
      slug: "github_mcp",
      description: "GitHub operations via MCP",
      url: `${upstreams().bridge_plugins}/plugins/github/mcp`,
      mcp_plugin_dir: "/opt/mcp-plugins/github",
      mcp_transport_type: "stdio",
      mcp_lifecycle_mode: "transient",
      mcp_runtime_hint: "uvx",
      mcp_env_vars: [{ name: "GITHUB_TOKEN", secret: true }],
      has_bridge_token: true,
      last_discovery_error: null,
    });
    expect(source.manifest).toMatchObject({
      name: "@modelcontextprotocol/github",
      packages: [{ name: "default", transport_type: "stdio" }],
    });
    expect(JSON.stringify((await sourceRow(source.id))["mcp_env_vars"])).not.toContain("ghp_xxx");

    const client = await connectGateway(owner);
    expect(await toolNames(client)).toEqual(expect.arrayContaining(["github_mcp__pid", "github_mcp__variable"]));
    const token = await client.callTool({ name: "github_mcp__variable", arguments: { name: "GITHUB_TOKEN" } });
    expect(textOf(token)).toBe("ghp_xxx...");

    // transient: a process per call; singleton: one kept.
    const pid = async () => textOf(await client.callTool({ name: "github_mcp__pid", arguments: {} }));
    expect(await pid()).not.toBe(await pid());
    const patched = await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${source.id}`, { body: { mcp_lifecycle_mode: "singleton" } });
    expect(patched.status).toBe(200);
    const kept = await pid();
    expect(await pid()).toBe(kept);
  });

  it("re-reads the plugin when its variables or directory change: a missing required variable is a 400, another plugin is found", async () => {
    const owner = await createUser();
    const {
      body: { source },
    } = await register(owner, pluginBody(upstreams().bridge_plugins));
    const missing = await api(owner, "PATCH", `/api/sources/${source.id}`, { body: { mcp_env_vars: {} } });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).message).toContain("GITHUB_TOKEN");

    const moved = await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${source.id}`, {
      body: { mcp_plugin_dir: "/opt/mcp-plugins/everything", mcp_env_vars: {} },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.source).toMatchObject({
      url: `${upstreams().bridge_plugins}/plugins/everything/mcp`,
      mcp_plugin_dir: "/opt/mcp-plugins/everything",
    });
    expect(moved.body.tools.map((t) => t.name)).toContain("echo");
  });

  it("registers against the provider's manifest exactly as documented; the missing uvx is a discovery error, not a refusal", async () => {
    const owner = await createUser();
    const res = await register(owner, pluginBody(upstreams().bridge_provider));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.source.manifest).toEqual(PROVIDER_MANIFEST);
    expect(res.body).toMatchObject({ source: { mcp_command: "uvx", mcp_args: ["mcp-server-github"] }, tools: [] });
    expect(res.body.source.last_discovery_error).toMatch(/^connection: .*spawn uvx ENOENT/);
  });

  it("answers 400 naming the required variable left out, and stores nothing", async () => {
    const owner = await createUser();
    const res = await register(owner, pluginBody(upstreams().bridge_plugins, { mcp_env_vars: {} }));
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: "invalid_input", details: { field: "mcp_env_vars" } });
    expect(errorOf(res).message).toMatch(/requires: GITHUB_TOKEN$/);
    expect(await sourceCount(owner)).toBe(0);
  });

  it("answers 400 for a plugin the bridge does not serve, a wrong token or a bridge without plugins, naming each", async () => {
    const owner = await createUser();
    const unknown = await register(owner, pluginBody(upstreams().bridge_plugins, { mcp_plugin_dir: "/opt/mcp-plugins/gitlab" }));
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).details).toEqual({ field: "mcp_plugin_dir" });
    expect(errorOf(unknown).message).toContain("serves no plugin gitlab (it serves: everything, github)");

    const badToken = await register(owner, pluginBody(upstreams().bridge_plugins, { bridge_token: "not-the-bridge-token-at-all" }));
    expect(badToken.status).toBe(400);
    expect(errorOf(badToken).details).toEqual({ field: "bridge_token" });

    const single = await register(owner, pluginBody(new URL(upstreams().bridge_fixture).origin));
    expect(single.status).toBe(400);
    expect(errorOf(single).details).toEqual({ field: "url" });
    expect(errorOf(single).message).toContain("--plugins");
    expect(await sourceCount(owner)).toBe(0);
  });
});

describe("registration shapes that are refused", () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ["an object value that is not a string", { ...REMOTE_BODY, mcp_env_vars: { API_KEY: 5 } }, "mcp_env_vars.API_KEY", /expected string/],
    [
      "an object key that is no header or variable name",
      { ...REMOTE_BODY, mcp_env_vars: { "API KEY": "x" } },
      "mcp_env_vars.API KEY",
      /valid HTTP header/,
    ],
    ["neither a list nor an object", { ...REMOTE_BODY, mcp_env_vars: "API_KEY=x" }, "mcp_env_vars", /a list of .* or an object/],
    [
      "a secret-store reference",
      { ...REMOTE_BODY, mcp_env_vars: { CML_TOKEN: "${secrets:cml-token}" } },
      "mcp_env_vars.CML_TOKEN",
      /does not resolve/,
    ],
    [
      "too many variables",
      { ...REMOTE_BODY, mcp_env_vars: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`V${i}`, "x"])) },
      "mcp_env_vars",
      /at most 20/,
    ],
    ["another source type", { ...REMOTE_BODY, source_type: "openapi" }, "source_type", /only "mcp"/],
    [
      "a plugin with a remote URL",
      pluginBody("http://127.0.0.1:9", { mcp_server_url: "http://127.0.0.1:9/mcp" }),
      "mcp_plugin_dir",
      /one or the other/,
    ],
    ["a plugin over sse", pluginBody("http://127.0.0.1:9", { mcp_transport_type: "sse" }), "mcp_transport_type", /run over stdio/],
    [
      "a plugin with its own manifest",
      pluginBody("http://127.0.0.1:9", { manifest: PROVIDER_MANIFEST }),
      "manifest",
      /read from the bridge/,
    ],
    [
      "a plugin without a bridge URL",
      { ...pluginBody("http://127.0.0.1:9"), url: undefined },
      "url",
      /base URL of the `mcp-edge bridge --plugins`/,
    ],
    [
      "a plugin directory naming no directory",
      pluginBody("http://127.0.0.1:9", { mcp_plugin_dir: "/opt/mcp-plugins/.." }),
      "mcp_plugin_dir",
      /must end in a directory name/,
    ],
  ];

  it.each(cases)("%s: 400 naming the field, nothing stored", async (_what, body, field, message) => {
    const owner = await createUser();
    const res = await register(owner, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(errorOf(res).code).toBe("invalid_input");
    expect(errorOf(res).details).toEqual({ field });
    expect(errorOf(res).message).toMatch(message);
    expect(await sourceCount(owner)).toBe(0);
  });
});

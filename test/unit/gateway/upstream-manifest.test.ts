/**
 * Plugin manifests: the MCP registry server.json shape in both casings, this project's plugin.json
 * (top-level command), and the original tools provider's plugin.json (`transport_type`, `runtime`,
 * `command` array, `environment_variables` with `required` / `secret`); the command line each
 * launches, the variables each declares, and errors that name the field. Also the call window
 * statistics of a source.
 */
import { describe, expect, it } from "vitest";
import { callStats, recordCall, CALL_WINDOW } from "../../../workers/gateway/calls/call-stats";
import {
  declaredEnv,
  missingRequiredEnv,
  parseManifest,
  REDACTED,
  redactSecretDefaults,
  secretEnvNames,
  stdioLaunch,
} from "../../../workers/gateway/registry/manifest";
import { AppError } from "../../../workers/lib/errors";

const registryServerJson = {
  name: "io.github.example/weather",
  description: "Weather tools",
  version: "1.0.2",
  packages: [
    { registryType: "npm", identifier: "@example/weather-http", transport: { type: "streamable-http", url: "https://x" } },
    {
      registryType: "npm",
      identifier: "@example/weather",
      version: "1.0.2",
      transport: { type: "stdio" },
      packageArguments: [
        { type: "positional", value: "serve" },
        { type: "named", name: "--units", value: "metric" },
      ],
      environmentVariables: [
        { name: "WEATHER_API_KEY", isRequired: true, isSecret: true, description: "API key" },
        { name: "WEATHER_REGION", default: "eu" },
      ],
    },
  ],
};

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("plugin manifests", () => {
  it("launches a registry server.json's stdio package through its runtime", () => {
    const manifest = parseManifest(registryServerJson);
    expect(stdioLaunch(manifest)).toEqual({
      command: "npx",
      args: ["-y", "@example/weather@1.0.2", "serve", "--units", "metric"],
      runtimeHint: "npx",
    });
    expect(declaredEnv(manifest)).toEqual([
      { name: "WEATHER_API_KEY", required: true, secret: true },
      { name: "WEATHER_REGION", required: false, secret: false, default: "eu" },
    ]);
    expect(missingRequiredEnv(manifest, [])).toEqual(["WEATHER_API_KEY"]);
    expect(missingRequiredEnv(manifest, ["WEATHER_API_KEY"])).toEqual([]);
  });

  it("reads the snake_case shape and other runtimes (pypi → uvx, oci → docker, explicit runtime_hint)", () => {
    const pypi = parseManifest({
      name: "py",
      packages: [
        {
          registry_name: "pypi",
          name: "mcp-server-time",
          version: "0.6.2",
          transport: { type: "stdio" },
          environment_variables: [{ name: "TZ_DEFAULT", is_required: true, is_secret: false }],
        },
      ],
    });
    expect(stdioLaunch(pypi)).toEqual({ command: "uvx", args: ["mcp-server-time==0.6.2"], runtimeHint: "uvx" });
    expect(declaredEnv(pypi)).toEqual([{ name: "TZ_DEFAULT", required: true, secret: false }]);

    const oci = parseManifest({
      name: "d",
      packages: [{ registryType: "oci", identifier: "ghcr.io/x/y", version: "2", transport: { type: "stdio" } }],
    });
    expect(stdioLaunch(oci).args).toEqual(["run", "-i", "--rm", "ghcr.io/x/y:2"]);

    const hinted = parseManifest({
      name: "h",
      packages: [
        { identifier: "tool", runtime_hint: "bunx", runtime_arguments: ["--bun"], transport: { type: "stdio" }, args: ["--flag"] },
      ],
    });
    expect(stdioLaunch(hinted)).toEqual({ command: "bunx", args: ["--bun", "tool", "--flag"], runtimeHint: "bunx" });
  });

  it("prefers a plugin.json's own command, and offers its env as optional defaults", () => {
    const manifest = parseManifest({ name: "local", command: "node", args: ["server.js"], env: { LOG_LEVEL: "info" } });
    expect(stdioLaunch(manifest)).toEqual({ command: "node", args: ["server.js"], runtimeHint: null });
    expect(declaredEnv(manifest)).toEqual([{ name: "LOG_LEVEL", required: false, secret: false, default: "info" }]);
    expect(missingRequiredEnv(manifest, [])).toEqual([]);
  });

  it("names the field that is wrong", () => {
    expect(errorOf(() => parseManifest({ command: "node" })).message).toMatch(/^manifest name:/);
    expect(errorOf(() => parseManifest({ name: "x" })).details).toEqual({ field: "command" });
    const badTransport = errorOf(() =>
      parseManifest({ name: "x", packages: [{ identifier: "a", transport: { type: "carrier-pigeon" } }] }),
    );
    expect(badTransport.details).toEqual({ field: "packages.0.transport.type" });
    const badEnv = errorOf(() =>
      parseManifest({
        name: "x",
        command: "n",
        packages: [{ transport: { type: "stdio" }, environmentVariables: [{ name: "LD PRELOAD" }] }],
      }),
    );
    expect(badEnv.message).toContain("environment variable name");
    expect(errorOf(() => parseManifest("not an object")).code).toBe("invalid_input");
    const noRuntime = parseManifest({ name: "x", packages: [{ identifier: "a", registryType: "cargo", transport: { type: "stdio" } }] });
    expect(errorOf(() => stdioLaunch(noRuntime)).message).toContain("runtimeHint");
  });
});

/** The provider's "Plugin Manifest (plugin.json)", exactly as documented. */
const providerPluginJson = {
  name: "@modelcontextprotocol/github",
  version: "1.0.0",
  description: "GitHub MCP server for repository operations",
  packages: [
    {
      name: "default",
      transport_type: "stdio",
      runtime: "uvx",
      command: ["mcp-server-github"],
      environment_variables: [
        {
          name: "GITHUB_TOKEN",
          description: "GitHub Personal Access Token",
          required: true,
          secret: true,
        },
      ],
    },
  ],
};

describe("the original provider's plugin.json", () => {
  it("is read as documented: its runtime runs its command, its variable is required and secret", () => {
    const manifest = parseManifest(providerPluginJson);
    expect(stdioLaunch(manifest)).toEqual({ command: "uvx", args: ["mcp-server-github"], runtimeHint: "uvx" });
    expect(declaredEnv(manifest)).toEqual([{ name: "GITHUB_TOKEN", required: true, secret: true }]);
    expect(missingRequiredEnv(manifest, [])).toEqual(["GITHUB_TOKEN"]);
    expect(missingRequiredEnv(manifest, ["GITHUB_TOKEN"])).toEqual([]);
    expect(secretEnvNames(manifest)).toEqual(new Set(["GITHUB_TOKEN"]));
  });

  it("runs npx and docker packages without prompting, and a command that names its runtime as written", () => {
    const pkg = (fields: Record<string, unknown>) =>
      parseManifest({ name: "p", packages: [{ name: "default", transport_type: "stdio", ...fields }] });
    expect(stdioLaunch(pkg({ runtime: "npx", command: ["@scope/server", "--flag"] }))).toEqual({
      command: "npx",
      args: ["-y", "@scope/server", "--flag"],
      runtimeHint: "npx",
    });
    expect(stdioLaunch(pkg({ runtime: "docker", command: ["ghcr.io/x/y"] })).args).toEqual(["run", "-i", "--rm", "ghcr.io/x/y"]);
    expect(stdioLaunch(pkg({ runtime: "python", command: ["python", "-m", "server"] }))).toEqual({
      command: "python",
      args: ["-m", "server"],
      runtimeHint: "python",
    });
    expect(stdioLaunch(pkg({ command: ["./server", "stdio"], args: ["--verbose"] }))).toEqual({
      command: "./server",
      args: ["stdio", "--verbose"],
      runtimeHint: null,
    });
  });

  it("skips packages of other transports for the stdio one, and names what is wrong in the provider's own field names", () => {
    const mixed = parseManifest({
      name: "m",
      packages: [
        { name: "remote", transport_type: "http" },
        { name: "local", transport_type: "stdio", runtime: "node", command: ["server.js"] },
      ],
    });
    expect(stdioLaunch(mixed).args).toEqual(["server.js"]);
    expect(errorOf(() => parseManifest({ name: "x", packages: [{ transport_type: "pigeon", command: ["a"] }] })).details).toEqual({
      field: "packages.0.transport_type",
    });
    expect(
      errorOf(() => parseManifest({ name: "x", packages: [{ transport_type: "stdio", command: "mcp-server-github" }] })).details,
    ).toEqual({
      field: "packages.0.command",
    });
    const badVariable = errorOf(() =>
      parseManifest({
        name: "x",
        packages: [{ transport_type: "stdio", command: ["a"], environment_variables: [{ name: "GITHUB TOKEN", required: "yes" }] }],
      }),
    );
    expect(badVariable.details).toEqual({ field: "packages.0.environment_variables.0.name" });
    expect(errorOf(() => parseManifest({ name: "x", packages: [{ transport_type: "http" }] })).message).toContain(
      "transport_type) is stdio",
    );
    expect(
      errorOf(() => stdioLaunch(parseManifest({ name: "x", command: undefined, packages: [{ transport_type: "stdio" }] }))).message,
    ).toContain("no identifier (or command)");
  });

  it("redacts the default of a secret variable in either shape, keeping everything else as written", () => {
    const manifest = {
      name: "r",
      packages: [
        {
          transport_type: "stdio",
          command: ["a"],
          environment_variables: [
            { name: "KEY", secret: true, default: "s3cret" },
            { name: "MODE", default: "fast" },
          ],
        },
      ],
    };
    const redacted = redactSecretDefaults(manifest, secretEnvNames(parseManifest(manifest)));
    expect(redacted).toEqual({
      name: "r",
      packages: [
        {
          transport_type: "stdio",
          command: ["a"],
          environment_variables: [
            { name: "KEY", secret: true, default: REDACTED },
            { name: "MODE", default: "fast" },
          ],
        },
      ],
    });
    expect(manifest.packages[0]!.environment_variables[0]!.default).toBe("s3cret");
  });
});

describe("call window statistics", () => {
  it("summarises the last calls: error rate, percentiles, last success and error", () => {
    let calls = [] as ReturnType<typeof recordCall>;
    for (let i = 1; i <= 20; i++) calls = recordCall(calls, { at: Date.UTC(2026, 0, 1, 0, 0, i), ms: i * 10, error: null });
    calls = recordCall(calls, { at: Date.UTC(2026, 0, 1, 0, 1), ms: 5000, error: "timeout: upstream did not answer in time" });
    expect(callStats(calls)).toEqual({
      window: 21,
      errors: 1,
      error_rate: 1 / 21,
      p50_ms: 110,
      p95_ms: 200,
      last_success_at: "2026-01-01T00:00:20.000Z",
      last_error_at: "2026-01-01T00:01:00.000Z",
      last_error: "timeout: upstream did not answer in time",
    });
  });

  it("keeps only the newest calls, and is empty before any", () => {
    expect(callStats([])).toMatchObject({ window: 0, errors: 0, error_rate: 0, p50_ms: null, p95_ms: null, last_error: null });
    let calls = [] as ReturnType<typeof recordCall>;
    for (let i = 0; i < CALL_WINDOW + 15; i++) calls = recordCall(calls, { at: i, ms: i, error: i < 15 ? "connection: x" : null });
    expect(callStats(calls)).toMatchObject({ window: CALL_WINDOW, errors: 0 });
  });
});

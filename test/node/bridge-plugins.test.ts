/**
 * `mcp-edge bridge --plugins DIR`: every plugin directory at its own path, the manifest the gateway
 * reads at registration, required variables checked per session, the original provider's
 * manifest as documented, and which directories are served or skipped. Processes are the stdio
 * fixture and server-everything, run from test/upstreams/plugins.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BridgeCli, parseBridgeArgs } from "../../bin/commands/bridge";
import type { Logger } from "../../bin/bridge/log";
import { type RunningBridge, startBridge } from "../../bin/bridge/server";
import { readBridgePlugin } from "../../workers/gateway/registry/bridge-plugins";
import { BRIDGE_PROCESS_EXITED } from "../../workers/mcp-client/bridge-protocol";
import { AppError } from "../../workers/lib/errors";
import { callTool, INIT, openSession, rpc, textOf, TOKEN } from "./helpers/bridge-client";

const ROOT = resolve(import.meta.dirname, "../..");
const PLUGINS = join(ROOT, "test/upstreams/plugins");
const PROVIDER_PLUGINS = join(ROOT, "test/upstreams/provider-plugins");

const logLines: string[] = [];
const log: Logger = (event, fields = {}) => void logLines.push(`${event} ${JSON.stringify(fields)}`);

function environment(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  delete env["GITHUB_TOKEN"];
  return { ...env, ...extra };
}

function plugins(dir: string, env: Record<string, string>, extra: string[] = []): BridgeCli {
  return parseBridgeArgs(["--port", "0", `--token=${TOKEN}`, "--plugins", dir, ...extra], env, ROOT, log);
}

function bridgeEnv(values: Record<string, string>): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

async function getJson(url: string, token = TOKEN): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("mcp-edge bridge --plugins", () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await startBridge({ ...plugins(PLUGINS, environment()), log });
  });
  afterAll(() => bridge.close());

  it("lists its plugins and answers each one's manifest to the token holder only", async () => {
    expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const list = await getJson(`${bridge.url}/plugins`);
    expect(list.body).toEqual({
      plugins: [
        { name: "everything", endpoint: "/plugins/everything/mcp" },
        { name: "github", endpoint: "/plugins/github/mcp" },
      ],
    });
    const github = await getJson(`${bridge.url}/plugins/github`);
    expect(github.status).toBe(200);
    expect(github.body).toEqual({
      name: "github",
      endpoint: "/plugins/github/mcp",
      manifest: JSON.parse(readFileSync(join(PLUGINS, "github/plugin.json"), "utf8")),
      provided_env: [],
    });
    expect((await getJson(`${bridge.url}/plugins`, "wrong-token-of-some-length")).status).toBe(401);
    expect((await getJson(`${bridge.url}/plugins/github`, "wrong-token-of-some-length")).status).toBe(401);
    const unknown = await getJson(`${bridge.url}/plugins/gitlab`);
    expect(unknown.status).toBe(404);
    expect(String(unknown.body["error"])).toContain("everything, github");
    const single = await rpc(`${bridge.url}/mcp`, INIT);
    expect(single.status).toBe(404);
  });

  it("serves each plugin at its own path, with the gateway's variable in the process", async () => {
    const github = `${bridge.url}/plugins/github/mcp`;
    const session = await openSession(github, { "mcp-bridge-env": bridgeEnv({ GITHUB_TOKEN: "ghp_from_the_gateway" }) });
    expect(textOf(await callTool(github, session, "variable", 2, { name: "GITHUB_TOKEN" }))).toBe("ghp_from_the_gateway");

    const everything = `${bridge.url}/plugins/everything/mcp`;
    const other = await openSession(everything);
    const echo = await callTool(everything, other, "echo", 3, { message: "from the everything plugin" });
    expect(textOf(echo)).toContain("from the everything plugin");
    // A session belongs to the plugin that opened it.
    expect((await callTool(everything, session, "pid", 4)).status).toBe(404);
    expect(logLines.join("\n")).not.toContain("ghp_from_the_gateway");
  });

  it("refuses a session without a required variable, naming it", async () => {
    const reply = await rpc(`${bridge.url}/plugins/github/mcp`, INIT);
    expect(reply.sessionId).toBeNull();
    expect(reply.body?.error?.message).toContain("plugin github requires GITHUB_TOKEN");
  });
});

describe("the gateway's reading of a plugin (workers/gateway/registry/bridge-plugins.ts, run in Node)", () => {
  let bridge: RunningBridge;
  const servers: Server[] = [];
  const listen = (handler: Parameters<typeof createServer>[1]) =>
    new Promise<string>((done) => {
      const server = createServer(handler);
      servers.push(server);
      server.listen(0, "127.0.0.1", () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    });
  beforeAll(async () => {
    bridge = await startBridge({ ...plugins(PLUGINS, environment()), log });
  });
  afterAll(async () => {
    await bridge.close();
    for (const server of servers) server.close();
  });

  it("reads the manifest and endpoint of the plugin a provider-style directory names", async () => {
    const plugin = await readBridgePlugin({ bridgeUrl: `${bridge.url}/`, dir: "/opt/mcp-plugins/github", token: TOKEN, timeoutMs: 5_000 });
    expect(plugin.endpoint).toBe(`${bridge.url}/plugins/github/mcp`);
    expect(plugin.manifest).toEqual(JSON.parse(readFileSync(join(PLUGINS, "github/plugin.json"), "utf8")));
  });

  it("never follows a redirect with the bridge token", async () => {
    const seen: (string | undefined)[] = [];
    const elsewhere = await listen((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ manifest: { name: "x", command: "node" } }));
    });
    const redirecting = await listen((_req, res) => res.writeHead(302, { location: `${elsewhere}/plugins/github` }).end());
    const refused = await readBridgePlugin({ bridgeUrl: redirecting, dir: "github", token: TOKEN, timeoutMs: 5_000 }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).message).toContain("HTTP 302");
    expect(seen).toEqual([]);
  });
});

describe("mcp-edge bridge --plugins, variables the operator sets", () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await startBridge({ ...plugins(PLUGINS, environment({ GITHUB_TOKEN: "ghp_operator_value" })), log });
  });
  afterAll(() => bridge.close());

  it("says which declared variables it sets itself (names only) and needs no header for them", async () => {
    const info = await getJson(`${bridge.url}/plugins/github`);
    expect(info.body["provided_env"]).toEqual(["GITHUB_TOKEN"]);
    expect(JSON.stringify(info.body)).not.toContain("ghp_operator_value");
    const github = `${bridge.url}/plugins/github/mcp`;
    const session = await openSession(github);
    expect(textOf(await callTool(github, session, "variable", 2, { name: "GITHUB_TOKEN" }))).toBe("ghp_operator_value");
  });
});

describe("the original provider's plugin manifest, as documented", () => {
  const documented = JSON.parse(readFileSync(join(PROVIDER_PLUGINS, "github/plugin.json"), "utf8")) as Record<string, unknown>;
  // An empty PATH: `uvx` is never found, whatever the machine has installed.
  const emptyPath = mkdtempSync(join(tmpdir(), "bridge-empty-path-"));
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await startBridge({ ...plugins(PROVIDER_PLUGINS, environment({ PATH: emptyPath })), log });
  });
  afterAll(() => bridge.close());

  it("is served as written and runs `uvx mcp-server-github` in its directory", async () => {
    const cli = plugins(PROVIDER_PLUGINS, environment());
    if (cli.serve.kind !== "plugins") throw new Error("expected a plugins bridge");
    expect(cli.serve.plugins.map((p) => [p.name, p.command, p.args, p.cwd, p.requiredEnv])).toEqual([
      ["github", "uvx", ["mcp-server-github"], join(PROVIDER_PLUGINS, "github"), ["GITHUB_TOKEN"]],
    ]);
    expect((await getJson(`${bridge.url}/plugins/github`)).body["manifest"]).toEqual(documented);
  });

  it("answers initialize with a typed error naming why the process could not start", async () => {
    const reply = await rpc(`${bridge.url}/plugins/github/mcp`, INIT, { "mcp-bridge-env": bridgeEnv({ GITHUB_TOKEN: "ghp_xxx..." }) });
    expect(reply.body?.error?.code).toBe(BRIDGE_PROCESS_EXITED);
    expect(reply.body?.error?.message).toMatch(/could not be started: spawn uvx ENOENT/);
  });
});

describe("which directories --plugins serves", () => {
  const dir = mkdtempSync(join(tmpdir(), "bridge-plugins-"));
  const write = (path: string, value: unknown) => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), typeof value === "string" ? value : JSON.stringify(value));
  };
  write("local/plugin.json", { name: "local", command: "node", args: ["server.js"] });
  write("registry/server.json", {
    name: "io.example/registry",
    packages: [
      {
        registryType: "npm",
        identifier: "@example/registry",
        transport: { type: "stdio" },
        environmentVariables: [{ name: "REGISTRY_KEY", isSecret: true, default: "default-secret-value" }],
      },
    ],
  });
  write("broken/plugin.json", "{ not json");
  write("no-stdio/plugin.json", { name: "remote", packages: [{ name: "default", transport_type: "http" }] });
  write("bad name/plugin.json", { name: "x", command: "node" });
  write("not-a-plugin/README.md", "nothing to serve");

  it("serves each valid plugin, skips broken ones with a logged reason, ignores other directories", () => {
    logLines.length = 0;
    const cli = plugins(dir, {});
    if (cli.serve.kind !== "plugins") throw new Error("expected a plugins bridge");
    expect(cli.serve.plugins.map((p) => [p.name, p.command, p.args])).toEqual([
      ["local", "node", ["server.js"]],
      ["registry", "npx", ["-y", "@example/registry"]],
    ]);
    const registry = cli.serve.plugins[1]!;
    expect(JSON.stringify(registry.manifest)).not.toContain("default-secret-value");
    expect(registry.baseEnv["REGISTRY_KEY"]).toBe("default-secret-value");
    const skipped = logLines.filter((line) => line.startsWith("plugin_skipped")).join("\n");
    expect(skipped).toContain('"plugin":"broken"');
    expect(skipped).toContain("not valid JSON");
    expect(skipped).toContain('"plugin":"no-stdio"');
    expect(skipped).toContain('"plugin":"bad name"');
    expect(skipped).not.toContain("not-a-plugin");
  });

  it("refuses a directory that serves nothing, or --plugins with another source of servers", () => {
    const empty = mkdtempSync(join(tmpdir(), "bridge-plugins-empty-"));
    expect(() => plugins(empty, {})).toThrow(/no directory under it holds a valid plugin.json or server.json/);
    expect(() => plugins(join(dir, "missing"), {})).toThrow(/not a directory/);
    expect(() => plugins(dir, {}, ["--manifest", join(dir, "local/plugin.json")])).toThrow(/give one of --plugins/);
  });
});

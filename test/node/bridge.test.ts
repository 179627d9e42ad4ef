/**
 * `mcp-edge bridge` itself, in Node: authentication, the environment allowlist, process lifetime
 * (per session, shared, restart after a crash, killed on DELETE), and the CLI's refusals at start
 * (missing required variables, bad manifests, bad arguments). The stdio server is the fixture in
 * test/upstreams/fixture-stdio.ts, a real MCP server.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BridgeCli, parseBridgeArgs, UsageError } from "../../bin/commands/bridge";
import type { Logger } from "../../bin/bridge/log";
import type { PluginSpec } from "../../bin/bridge/plugins";
import { type BridgeOptions, type RunningBridge, startBridge } from "../../bin/bridge/server";
import { BRIDGE_PROCESS_EXITED } from "../../workers/mcp-client/bridge-protocol";
import { alive, callTool, INIT, openSession, rpc, textOf, TOKEN } from "./helpers/bridge-client";
import { until } from "../helpers/eventually";

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURE = ["--import", "tsx", join(ROOT, "test/upstreams/fixture-stdio.ts")];

const logLines: string[] = [];
const log: Logger = (event, fields = {}) => void logLines.push(`${event} ${JSON.stringify(fields)}`);

function bridgeOptions(singleton: boolean, idleTimeoutMs = 60_000): BridgeOptions {
  const plugin: PluginSpec = {
    name: "",
    command: process.execPath,
    args: FIXTURE,
    cwd: ROOT,
    allowedEnv: new Set(["FIXTURE_GREETING"]),
    defaults: {},
    baseEnv: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    requiredEnv: [],
    providedEnv: [],
    manifest: null,
  };
  return {
    host: "127.0.0.1",
    port: 0,
    tokens: [TOKEN],
    serve: { kind: "single", plugin },
    singleton,
    idleTimeoutMs,
    maxProcesses: 32,
    maxProcessesPerToken: 16,
    log,
  };
}

describe("mcp-edge bridge (per-session processes)", () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await startBridge(bridgeOptions(false));
  });
  afterAll(() => bridge.close());

  it("refuses a missing or wrong bearer token with 401, and serves /healthz without one", async () => {
    const none = await fetch(bridge.url, { method: "POST", body: JSON.stringify(INIT) });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    const wrong = await rpc(bridge.url, INIT, { authorization: "Bearer wrong-token-of-some-length" });
    expect(wrong.status).toBe(401);
    expect(wrong.body?.error?.message).toContain("bearer token");
    const health = await fetch(bridge.url.replace("/mcp", "/healthz"));
    expect(await health.json()).toEqual({ ok: true });
  });

  it("serves a real MCP client: tools over the stdio server", async () => {
    const client = new Client({ name: "bridge-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(bridge.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(["pid", "greeting", "variable", "slow", "crash"]);
    const result = await client.callTool({ name: "slow", arguments: { ms: 10 } });
    expect(result.content).toEqual([{ type: "text", text: "slept 10 ms" }]);
    await client.close();
  });

  it("gives each session its own process, with the declared variable from Mcp-Bridge-Env", async () => {
    const env = Buffer.from(JSON.stringify({ FIXTURE_GREETING: "hello-secret-value" })).toString("base64url");
    const a = await openSession(bridge.url, { "mcp-bridge-env": env });
    const b = await openSession(bridge.url);
    expect(textOf(await callTool(bridge.url, a, "greeting"))).toBe("hello-secret-value");
    expect(textOf(await callTool(bridge.url, b, "greeting"))).toBe("(unset)");
    expect(textOf(await callTool(bridge.url, a, "pid"))).not.toBe(textOf(await callTool(bridge.url, b, "pid")));
    expect(logLines.join("\n")).not.toContain("hello-secret-value");
    expect(logLines.join("\n")).toContain("FIXTURE_GREETING");
  });

  it("refuses variables the bridge does not allow, naming them", async () => {
    const env = Buffer.from(JSON.stringify({ PATH: "/tmp/evil", FIXTURE_GREETING: "x" })).toString("base64url");
    const reply = await rpc(bridge.url, INIT, { "mcp-bridge-env": env });
    expect(reply.sessionId).toBeNull();
    expect(reply.body?.error?.message).toContain("does not allow setting PATH");
    expect(reply.body?.error?.message).not.toContain("/tmp/evil");
    const garbage = await rpc(bridge.url, INIT, { "mcp-bridge-env": "%%%not-base64%%%" });
    expect(garbage.body?.error?.message).toContain("Mcp-Bridge-Env");
  });

  it("answers a crash mid-call with a typed JSON-RPC error, 404s the dead session, and restarts on re-initialise", async () => {
    const session = await openSession(bridge.url);
    const pid = Number(textOf(await callTool(bridge.url, session, "pid")));
    const crashed = await callTool(bridge.url, session, "crash", 3);
    expect(crashed.body?.error?.code).toBe(BRIDGE_PROCESS_EXITED);
    expect(crashed.body?.error?.message).toContain("exited with code 3");
    await until(() => !alive(pid), "the crashed process to be gone");

    const stale = await callTool(bridge.url, session, "pid", 4);
    expect(stale.status).toBe(404);
    const fresh = await openSession(bridge.url);
    const newPid = Number(textOf(await callTool(bridge.url, fresh, "pid")));
    expect(newPid).toBeGreaterThan(0);
    expect(newPid).not.toBe(pid);
  });

  it("kills a session's process when the session is deleted", async () => {
    const session = await openSession(bridge.url);
    const pid = Number(textOf(await callTool(bridge.url, session, "pid")));
    expect(alive(pid)).toBe(true);
    const res = await fetch(bridge.url, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": session } });
    expect(res.status).toBe(200);
    await until(() => !alive(pid), "the session's process to exit");
    expect((await callTool(bridge.url, session, "pid")).status).toBe(404);
  });

  it("rejects malformed requests with JSON-RPC errors, not crashes", async () => {
    const notJson = await fetch(bridge.url, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: "{oops" });
    expect(notJson.status).toBe(400);
    expect((await rpc(bridge.url, [INIT])).body?.error?.message).toContain("batches");
    expect((await rpc(bridge.url, { jsonrpc: "2.0", id: 9, method: "tools/list" })).status).toBe(400);
    expect((await rpc(bridge.url, { jsonrpc: "2.0", id: 9, method: "tools/list" }, { "mcp-session-id": "nope" })).status).toBe(404);
  });
});

describe("mcp-edge bridge idle timeout", () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await startBridge(bridgeOptions(false, 1_500));
  });
  afterAll(() => bridge.close());

  it("ends an idle session and kills its process", async () => {
    const session = await openSession(bridge.url);
    const pid = Number(textOf(await callTool(bridge.url, session, "pid")));
    expect(pid).toBeGreaterThan(0);
    await until(() => !alive(pid), "the idle session's process to be killed");
    expect((await callTool(bridge.url, session, "pid")).status).toBe(404);
    expect(logLines.some((line) => line.startsWith("session_close") && line.includes('"reason":"idle"'))).toBe(true);
  });
});

describe("mcp-edge bridge --singleton", () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await startBridge(bridgeOptions(true));
  });
  afterAll(() => bridge.close());

  it("shares one process between sessions and restarts it after a crash", async () => {
    const a = await openSession(bridge.url);
    const b = await openSession(bridge.url);
    const pidA = textOf(await callTool(bridge.url, a, "pid"));
    expect(textOf(await callTool(bridge.url, b, "pid"))).toBe(pidA);

    const crashed = await callTool(bridge.url, a, "crash", 5);
    expect(crashed.body?.error?.code).toBe(BRIDGE_PROCESS_EXITED);
    // Both sessions died with the shared process.
    expect((await callTool(bridge.url, b, "pid")).status).toBe(404);
    const c = await openSession(bridge.url);
    const pidC = textOf(await callTool(bridge.url, c, "pid"));
    expect(pidC).not.toBe(pidA);
  });

  it("refuses a session whose variables differ from the running shared process", async () => {
    await openSession(bridge.url);
    const env = Buffer.from(JSON.stringify({ FIXTURE_GREETING: "other" })).toString("base64url");
    const reply = await rpc(bridge.url, INIT, { "mcp-bridge-env": env });
    expect(reply.body?.error?.message).toContain("different Mcp-Bridge-Env");
  });
});

function servedPlugin(cli: BridgeCli): PluginSpec {
  if (cli.serve.kind !== "single") throw new Error("expected a single-server bridge");
  return cli.serve.plugin;
}

describe("mcp-edge bridge command line", () => {
  const dir = mkdtempSync(join(tmpdir(), "bridge-cli-"));
  const manifest = (name: string, value: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
    return path;
  };
  const requiring = manifest("requires.json", {
    name: "needs-key",
    packages: [
      {
        registryType: "npm",
        identifier: "@example/needs-key",
        version: "1.2.3",
        transport: { type: "stdio" },
        environmentVariables: [
          { name: "API_KEY", isRequired: true, isSecret: true },
          { name: "REGION", isRequired: true, default: "eu" },
          { name: "DEBUG_LEVEL" },
        ],
      },
    ],
  });

  it("refuses to start when a required variable is missing, naming it", () => {
    expect(() => parseBridgeArgs(["--port", "0", "--token", TOKEN, "--manifest", requiring], {}, dir)).toThrow(
      /requires environment variables that are not set: API_KEY/,
    );
  });

  it("starts from a registry server.json: npx command, declared variables allowed, defaults applied", () => {
    const cli = parseBridgeArgs(["--port", "0", "--token", TOKEN, "--manifest", requiring], { API_KEY: "k" }, dir);
    const plugin = servedPlugin(cli);
    expect(plugin.command).toBe("npx");
    expect(plugin.args).toEqual(["-y", "@example/needs-key@1.2.3"]);
    expect([...plugin.allowedEnv].sort()).toEqual(["API_KEY", "DEBUG_LEVEL", "REGION"]);
    expect(plugin.defaults).toEqual({ REGION: "eu" });
    expect(plugin.cwd).toBe(dir);
  });

  it("gives the process only basic variables, manifest defaults and declared ones — not the operator's secrets", () => {
    const shell = { PATH: "/usr/bin", HOME: "/home/op", AWS_SECRET_ACCESS_KEY: "op-secret", API_KEY: "k", DEBUG_LEVEL: "2" };
    const cli = parseBridgeArgs(["--port", "0", "--token", TOKEN, "--manifest", requiring], shell, dir);
    expect(servedPlugin(cli).baseEnv).toEqual({ PATH: "/usr/bin", HOME: "/home/op", REGION: "eu", API_KEY: "k", DEBUG_LEVEL: "2" });
  });

  it("names what is wrong with a manifest or the arguments", () => {
    const parse = (argv: string[]) => () => parseBridgeArgs(argv, {}, dir);
    expect(parse(["--port", "0", "--token", TOKEN, "--manifest", manifest("bad.json", "{nope")])).toThrow(/not valid JSON/);
    expect(parse(["--port", "0", "--token", TOKEN, "--manifest", manifest("nocmd.json", { name: "x" })])).toThrow(
      /manifest command: needs a command/,
    );
    expect(
      parse([
        "--port",
        "0",
        "--token",
        TOKEN,
        "--manifest",
        manifest("badenv.json", { name: "x", command: "node", env: { "BAD-NAME": "1" } }),
      ]),
    ).toThrow(/manifest env/);
    expect(parse(["--port", "0", "--token", TOKEN, "--manifest", join(dir, "missing.json")])).toThrow(/cannot read manifest .*ENOENT/);
    expect(parse(["--port", "0", "--token", "short", "--", "node"])).toThrow(/at least 16 characters/);
    expect(parse(["--token", TOKEN, "--", "node"])).toThrow(/--port/);
    expect(parse(["--port", "0", "--token", TOKEN])).toThrow(/--plugins <dir>, --manifest <plugin.json> or -- <command>/);
    expect(parse(["--port", "0", "--token", TOKEN, "--env-allow", "OK,NOT OK", "--", "node"])).toThrow(/not a variable name/);
    expect(parse(["--port", "0", "--token", TOKEN, "--frobnicate", "--", "node"])).toThrow(UsageError);
  });

  it("exits 2 with the reason when run as a command", async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "bin/mcp-edge.js"), "bridge", "--port", "0", "--token", TOKEN, "--manifest", requiring],
      {
        cwd: ROOT,
        env: { ...process.env, API_KEY: "" },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.once("exit", done));
    expect(code).toBe(2);
    expect(stderr).toContain("API_KEY");
    expect(stderr).toContain("mcp-edge bridge --port <port> --token <secret> --manifest");
  });
});

/**
 * Vitest global setup of the `workers` project: starts the real upstream servers the gateway
 * tests register on the ports vitest.config.ts reserved, waits until each accepts
 * connections, and kills their whole process groups in teardown (tsx and npm-style launchers
 * fork children that a plain kill would orphan).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { acceptsConnections } from "../../bin/lib/ports";
import { startModelProviders } from "./model-providers";
import { reserveUpstreamPorts } from "./ports";

const ROOT = resolve(import.meta.dirname, "../..");
const EVERYTHING = resolve(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const BRIDGE = resolve(ROOT, "bin/mcp-edge.js");
const APPS_EXAMPLE = resolve(ROOT, "node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js");
const READY_TIMEOUT_MS = 60_000;

interface Started {
  name: string;
  child: ChildProcess;
  port: number;
  stderr: string[];
}

function start(name: string, args: string[], port: number, env: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true, // own process group, killed as a whole in teardown
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env, PORT: String(port) },
  });
  const stderr: string[] = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 50) stderr.shift();
  });
  return { name, child, port, stderr };
}

async function waitReady(server: Started): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) {
      throw new Error(`test upstream ${server.name} exited with ${server.child.exitCode}: ${server.stderr.join("")}`);
    }
    if (await acceptsConnections(server.port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`test upstream ${server.name} did not listen on ${server.port} within ${READY_TIMEOUT_MS} ms: ${server.stderr.join("")}`);
}

function killGroup(server: Started): void {
  if (server.child.pid === undefined || server.child.exitCode !== null) return;
  try {
    process.kill(-server.child.pid, "SIGTERM");
  } catch {
    // already gone
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  const ports = await reserveUpstreamPorts();
  const tsx = ["--import", "tsx"];
  // `--token=<value>`: a random base64url token may start with "-", which a separate argument
  // would turn into an ambiguous option.
  const servers: Started[] = [
    start("fixture", [...tsx, "test/upstreams/fixture-server.ts", String(ports.fixture)], ports.fixture),
    start("everything_http", [EVERYTHING, "streamableHttp"], ports.everythingHttp),
    start("everything_sse", [EVERYTHING, "sse"], ports.everythingSse),
    // The official MCP Apps example: one tool with a `ui://` app resource, streamable HTTP at /mcp on PORT.
    start("apps_example", [APPS_EXAMPLE], ports.appsExample),
    // `mcp-edge bridge` in front of stdio servers: server-everything (one process per session) and
    // the stdio fixture from its manifest (declares FIXTURE_GREETING for Mcp-Bridge-Env).
    start(
      "bridge",
      [BRIDGE, "bridge", "--port", String(ports.bridge), `--token=${ports.bridgeToken}`, "--", process.execPath, EVERYTHING, "stdio"],
      ports.bridge,
    ),
    start(
      "bridge_fixture",
      [
        BRIDGE,
        "bridge",
        "--port",
        String(ports.bridgeFixture),
        `--token=${ports.bridgeToken}`,
        "--manifest",
        "test/upstreams/fixture-plugin.json",
      ],
      ports.bridgeFixture,
    ),
    // Plugin directories, as the original tools provider lays them out (test/upstreams/plugins/README.md).
    start(
      "bridge_plugins",
      [BRIDGE, "bridge", "--port", String(ports.bridgePlugins), `--token=${ports.bridgeToken}`, "--plugins", "test/upstreams/plugins"],
      ports.bridgePlugins,
    ),
    // The provider's manifest exactly as documented; an empty PATH, so its `uvx` is never found here.
    start(
      "bridge_provider",
      [
        BRIDGE,
        "bridge",
        "--port",
        String(ports.bridgeProvider),
        `--token=${ports.bridgeToken}`,
        "--plugins",
        "test/upstreams/provider-plugins",
      ],
      ports.bridgeProvider,
      { PATH: mkdtempSync(join(tmpdir(), "mcp-edge-empty-path-")) },
    ),
    start(
      "bridge_capped",
      [
        BRIDGE,
        "bridge",
        "--port",
        String(ports.bridgeCapped),
        `--token=${ports.bridgeToken}`,
        "--max-processes",
        "1",
        "--manifest",
        "test/upstreams/fixture-plugin.json",
      ],
      ports.bridgeCapped,
    ),
  ];
  // The model providers' wire formats are served from this process: no child to wait for.
  const modelProviders = await startModelProviders(ports.modelProviders);
  try {
    await Promise.all(servers.map(waitReady));
  } catch (error) {
    servers.forEach(killGroup);
    modelProviders.close();
    throw error;
  }
  return async () => {
    modelProviders.close();
    modelProviders.closeIdleConnections();
    servers.forEach(killGroup);
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((done) => {
            if (server.child.exitCode !== null || server.child.signalCode !== null) return done();
            const timer = setTimeout(() => {
              try {
                if (server.child.pid !== undefined) process.kill(-server.child.pid, "SIGKILL");
              } catch {
                // already gone
              }
              done();
            }, 3_000);
            server.child.once("exit", () => {
              clearTimeout(timer);
              done();
            });
          }),
      ),
    );
  };
}

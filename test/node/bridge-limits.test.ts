/**
 * The bridge's process limits: a flood of initializes cannot spawn more processes than a token's
 * share or the bridge's total, a full bridge says so (429 / 503, Retry-After, the limit named), one
 * token's sessions are not another's, and slots come back when processes exit — by DELETE or by
 * the idle timeout.
 */
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_PROCESSES, DEFAULT_MAX_PROCESSES_PER_TOKEN, parseBridgeArgs } from "../../bin/commands/bridge";
import type { Logger } from "../../bin/bridge/log";
import type { PluginSpec } from "../../bin/bridge/plugins";
import { type RunningBridge, startBridge } from "../../bin/bridge/server";
import { BRIDGE_AT_CAPACITY } from "../../workers/mcp-client/bridge-protocol";
import { alive, callTool, INIT, openSession, type Rpc, rpc, textOf, TOKEN } from "./helpers/bridge-client";
import { until } from "../helpers/eventually";

const ROOT = resolve(import.meta.dirname, "../..");
const OTHER_TOKEN = "node-test-second-token-9876543210";
const other = { authorization: `Bearer ${OTHER_TOKEN}` };

const logLines: string[] = [];
const log: Logger = (event, fields = {}) => void logLines.push(`${event} ${JSON.stringify(fields)}`);
const spawned = () => logLines.filter((line) => line.startsWith("process_start")).length;

const fixture: PluginSpec = {
  name: "",
  command: process.execPath,
  args: ["--import", "tsx", join(ROOT, "test/upstreams/fixture-stdio.ts")],
  cwd: ROOT,
  allowedEnv: new Set(),
  defaults: {},
  baseEnv: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
  requiredEnv: [],
  providedEnv: [],
  manifest: null,
};

function start(limits: { maxProcesses: number; maxProcessesPerToken: number }, idleTimeoutMs: number): Promise<RunningBridge> {
  return startBridge({
    host: "127.0.0.1",
    port: 0,
    tokens: [TOKEN, OTHER_TOKEN],
    serve: { kind: "single", plugin: fixture },
    singleton: false,
    idleTimeoutMs,
    ...limits,
    log,
  });
}

function expectFull(reply: Rpc, status: 429 | 503, flag: string): void {
  expect(reply.status).toBe(status);
  expect(reply.sessionId).toBeNull();
  expect(reply.body?.error?.code).toBe(BRIDGE_AT_CAPACITY);
  expect(reply.body?.error?.message).toContain(flag);
  const retryAfter = Number(reply.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  expect(reply.body?.error?.data?.["retry_after_s"]).toBe(retryAfter);
}

async function pidOf(url: string, session: string, headers: Record<string, string> = {}): Promise<number> {
  return Number(textOf(await callTool(url, session, "pid", 2, {}, headers)));
}

describe("bridge process limits", () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await start({ maxProcesses: 3, maxProcessesPerToken: 2 }, 60_000);
  });
  afterAll(() => bridge.close());

  it("a flood of initializes from one token spawns no more than its share; the rest get 429 naming the limit", async () => {
    const before = spawned();
    const replies = await Promise.all(Array.from({ length: 8 }, () => rpc(bridge.url, INIT)));
    const opened = replies.filter((reply) => reply.sessionId !== null);
    expect(opened).toHaveLength(2);
    for (const reply of replies.filter((r) => r.sessionId === null)) expectFull(reply, 429, "--max-processes-per-token 2");
    expect(spawned() - before).toBe(2);

    // Another token still has its share, up to the bridge's total; then the bridge is full for everyone.
    const theirs = await rpc(bridge.url, INIT, other);
    expect(theirs.sessionId).not.toBeNull();
    expectFull(await rpc(bridge.url, INIT, other), 503, "--max-processes 3");
    expect(spawned() - before).toBe(3);
    expect(logLines.some((line) => line.startsWith("capacity_refused") && line.includes('"limit":"max_processes"'))).toBe(true);

    // A token cannot use, or end, another token's session.
    const mine = opened[0]!.sessionId!;
    expect((await callTool(bridge.url, mine, "pid", 5, {}, other)).status).toBe(404);
    const foreignDelete = await fetch(bridge.url, { method: "DELETE", headers: { ...other, "mcp-session-id": mine } });
    expect(foreignDelete.status).toBe(404);

    // After a process exits its slot comes back, and a new one starts.
    const pid = await pidOf(bridge.url, mine);
    const deleted = await fetch(bridge.url, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": mine } });
    expect(deleted.status).toBe(200);
    await until(() => !alive(pid), "the deleted session's process to exit");
    const again = await openSession(bridge.url);
    expect(await pidOf(bridge.url, again)).not.toBe(pid);
  });
});

describe("bridge process limits and the idle timeout", () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    bridge = await start({ maxProcesses: 4, maxProcessesPerToken: 1 }, 3_000);
  });
  afterAll(() => bridge.close());

  it("an idle session still dies, and frees its slot for the next initialize", async () => {
    const session = await openSession(bridge.url);
    const pid = await pidOf(bridge.url, session);
    expectFull(await rpc(bridge.url, INIT), 429, "--max-processes-per-token 1");
    await until(() => !alive(pid), "the idle session's process to be killed", { timeoutMs: 20_000 });
    const next = await openSession(bridge.url);
    expect(await pidOf(bridge.url, next)).not.toBe(pid);
  });
});

describe("bridge limit flags", () => {
  const parse = (...flags: string[]) => parseBridgeArgs(["--port", "0", `--token=${TOKEN}`, ...flags, "--", "node"], {}, ROOT);

  it("have defaults, take positive whole numbers, and several tokens", () => {
    const cli = parse();
    expect([cli.maxProcesses, cli.maxProcessesPerToken]).toEqual([DEFAULT_MAX_PROCESSES, DEFAULT_MAX_PROCESSES_PER_TOKEN]);
    expect([parse("--max-processes", "5").maxProcesses, parse("--max-processes-per-token", "2").maxProcessesPerToken]).toEqual([5, 2]);
    expect(() => parse("--max-processes", "0")).toThrow(/--max-processes must be a positive whole number/);
    expect(() => parse("--max-processes-per-token", "1.5")).toThrow(/--max-processes-per-token must be a positive whole number/);
    expect(parse(`--token=${OTHER_TOKEN}`).tokens).toEqual([TOKEN, OTHER_TOKEN]);
    expect(() => parse("--token=short")).toThrow(/at least 16 characters/);
  });
});

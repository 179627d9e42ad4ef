/**
 * The agent's MCP start-up, against real servers: the fixture upstreams (test/upstreams/) and the
 * Worker's own /mcp. Every failure mode leaves an agent that still answers with its own tools,
 * logs an error (an empty list: a warning) and tells the user; an MCP tool named like an own
 * tool replaces it with a warning naming both. ChatSession is the exact core the ChatAgent
 * Durable Object and `mcp-edge chat` run; the local intent-router model drives it.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatResult } from "../../../workers/agent/agent.types";
import { ChatSession, type ChatSessionOptions } from "../../../workers/agent/chat-session";
import { openMcpConnections } from "../../../workers/agent/mcp-tool-loader";
import { workerFetch } from "../../helpers/mcp";
import { createUser } from "../../helpers/users";

const upstreams = JSON.parse(env.TEST_UPSTREAMS) as { fixture: string };
const FIXTURE = upstreams.fixture;

type LogLine = { level: string; message: string; url?: string; error?: string };
let lines: LogLine[];

function logged(level: string, message: string): LogLine[] {
  return lines.filter((line) => line.level === level && line.message === message);
}

beforeEach(() => {
  lines = [];
  for (const method of ["log", "warn", "error"] as const) {
    vi.spyOn(console, method).mockImplementation((line: unknown) => {
      try {
        lines.push(JSON.parse(String(line)) as LogLine);
      } catch {
        // not one of our structured lines
      }
    });
  }
});
afterEach(() => vi.restoreAllMocks());

function session(mcpUrl: string | undefined, extra: Partial<ChatSessionOptions> = {}): ChatSession {
  return new ChatSession({ mcpUrl, model: {}, ...extra });
}

function ask(chat: ChatSession, message: string, authorization?: string): Promise<ChatResult> {
  return chat.chat({ message, history: [], identity: { userId: 1 }, timeZone: "Asia/Karachi", authorization });
}

/** The agent still works on its own tools: the time question runs current_time locally. */
async function expectOwnToolsWork(chat: ChatSession): Promise<void> {
  const result = await ask(chat, "what time is it?");
  expect(result.tool_calls.map((call) => call.name)).toEqual(["current_time"]);
  expect(result.tool_calls[0]!.is_error).toBe(false);
  expect(result.tool_calls[0]!.result).toMatch(/Asia\/Karachi, GMT\+05:00/);
  expect(result.reply).toContain("Your local time:");
  const tools = await ask(chat, "which tools do you have?");
  expect(tools.tool_calls.map((call) => call.name)).toEqual(["list_my_tools"]);
  expect(tools.tool_calls[0]!.result).toContain("current_time (agent)");
}

describe("MCP start-up failures never stop the agent", () => {
  const failures: { name: string; url: string; reason: RegExp; options?: Partial<ChatSessionOptions>; authorization?: string }[] = [
    { name: "invalid URL", url: "not a url", reason: /MCP_URL is not a valid http\(s\) URL/ },
    { name: "non-http URL", url: "ftp://127.0.0.1/mcp", reason: /unsupported protocol ftp:/ },
    { name: "refused connection", url: "http://127.0.0.1:9/mcp", reason: /Network connection lost|refused|fetch failed/i },
    // The default 5 s limit (no override): the fixture never answers initialize.
    { name: "timeout", url: `${FIXTURE}/stall/mcp`, reason: /no answer within 5000 ms|timed out|timeout/i },
    {
      name: "auth failure",
      url: "http://localhost/mcp",
      reason: /401|unauthori[sz]ed/i,
      options: { fetch: workerFetch },
      authorization: "Bearer not-a-real-token",
    },
    { name: "not an MCP endpoint (any other error)", url: `${FIXTURE}/nothing/mcp`, reason: /no fixture at \/nothing\/mcp/ },
  ];

  for (const failure of failures) {
    it(`${failure.name}: answers with its own tools, logs an error, warns the user`, async () => {
      const chat = session(failure.url, failure.options);
      const first = await ask(chat, "what time is it?", failure.authorization);
      expect(first.warnings).toHaveLength(1);
      expect(first.warnings[0]).toMatch(/^Could not load tools from the MCP server at .+ Running with the agent's own tools only\.$/);
      expect(first.warnings[0]).toMatch(failure.reason);
      const errors = logged("error", "agent mcp unavailable");
      expect(errors).toHaveLength(1);
      expect(errors[0]!.error).toMatch(failure.reason);
      expect(chat.connected).toBe(false);
      expect(first.tool_calls.map((call) => call.name)).toEqual(["current_time"]);
      await expectOwnToolsWork(chat);
      // No connection was left behind by the failed attempt.
      expect(openMcpConnections(new URL(failure.url, "http://x").href)).toBe(0);
      await chat.close();
    }, 30_000);
  }

  it("an empty tool list is a warning (not an error) and the agent runs on its own tools", async () => {
    const url = `${FIXTURE}/empty/mcp`;
    const chat = session(url);
    const result = await ask(chat, "what time is it?");
    expect(result.warnings).toEqual([`The MCP server at ${url} has no tools; running with the agent's own tools only.`]);
    expect(logged("warn", "agent mcp server has no tools")).toHaveLength(1);
    expect(logged("error", "agent mcp unavailable")).toHaveLength(0);
    await expectOwnToolsWork(chat);
    await chat.close();
    expect(openMcpConnections(url)).toBe(0);
  });

  it("an empty MCP_URL means unset: nothing is attempted, info only, no warnings", async () => {
    for (const url of [undefined, "", "   "]) {
      const chat = session(url);
      const result = await ask(chat, "what time is it?");
      expect(result.warnings).toEqual([]);
      expect(chat.connected).toBe(false);
      await expectOwnToolsWork(chat);
    }
    expect(logged("info", "agent mcp not configured")).toHaveLength(3);
    expect(lines.filter((line) => line.level === "error" || line.level === "warn")).toEqual([]);
  });

  it("a failed start-up is retried on a later turn only after the retry delay", async () => {
    const chat = session("http://127.0.0.1:9/mcp");
    await ask(chat, "hi");
    await ask(chat, "hi");
    expect(logged("error", "agent mcp unavailable")).toHaveLength(1);
  });
});

describe("an MCP tool named like an own tool replaces it", () => {
  it("warns naming both, lists it once, and calls the MCP tool", async () => {
    const url = `${FIXTURE}/conflict/mcp`;
    const chat = session(url);
    const result = await ask(chat, "what time is it?");
    expect(result.warnings).toEqual([`MCP tool current_time from ${url} replaces the agent's own current_time`]);
    expect(result.tool_calls).toHaveLength(1);
    expect(result.tool_calls[0]).toMatchObject({ name: "current_time", is_error: false, result: "fixture current_time" });
    const listed = await ask(chat, "which tools do you have?");
    const lines = listed.tool_calls[0]!.result.split("\n");
    expect(lines.filter((line) => line.startsWith("- current_time"))).toEqual([
      `- current_time (MCP ${url}): The fixture's clashing current_time`,
    ]);
    expect(lines.some((line) => line.startsWith("- list_my_tools (agent)"))).toBe(true);
    await chat.close();
  });
});

describe("MCP connections are lazy and closed on shutdown", () => {
  it("connects on the first turn, not before, and close() leaves nothing open", async () => {
    const url = `${FIXTURE}/empty/mcp`;
    const chat = session(url);
    expect(chat.connected).toBe(false);
    expect(openMcpConnections(url)).toBe(0);
    expect(lines).toEqual([]); // not even attempted
    await ask(chat, "hello");
    expect(chat.connected).toBe(true);
    expect(openMcpConnections(url)).toBe(1);
    await ask(chat, "hello again");
    expect(openMcpConnections(url)).toBe(1); // kept while warm, not reconnected
    await chat.close();
    expect(chat.connected).toBe(false);
    expect(openMcpConnections(url)).toBe(0);
    await ask(chat, "back again"); // a later turn reconnects, lazily
    expect(openMcpConnections(url)).toBe(1);
    await chat.close();
    expect(openMcpConnections(url)).toBe(0);
  });

  it("ends the server-side session of a stateful server on close", async () => {
    const url = `${FIXTURE}/mutable/mcp`;
    const chat = session(url);
    await ask(chat, "hello");
    const sessionId = chat.connection?.sessionId;
    expect(sessionId).toMatch(/./);
    const probe = () =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId!,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const alive = await probe();
    await alive.body?.cancel();
    expect(alive.status).toBe(200);
    await chat.close();
    const gone = await probe();
    await gone.body?.cancel();
    expect(gone.status).toBe(404);
    expect(openMcpConnections(url)).toBe(0);
  });

  it("a server that forgot the session: the call fails once, the next turn reconnects", async () => {
    const url = `${FIXTURE}/restartable/mcp`;
    const chat = session(url);
    await ask(chat, "hello");
    const first = chat.connection!;
    expect(await first.callTool("ping", {})).toEqual({ text: "pong", isError: false });
    // The server drops this one session (as after a restart; /control/restart would also end
    // other test files' sessions, so only ours is ended, out of band).
    const ended = await fetch(url, {
      method: "DELETE",
      headers: { "mcp-session-id": first.sessionId!, "mcp-protocol-version": "2025-06-18" },
    });
    await ended.body?.cancel();
    expect(ended.status).toBe(200);
    const lost = await first.callTool("ping", {});
    expect(lost.isError).toBe(true);
    expect(first.healthy).toBe(false);
    expect(logged("error", "agent mcp tool call failed")).toHaveLength(1);
    await ask(chat, "hello again");
    const second = chat.connection!;
    expect(second).not.toBe(first);
    expect(first.isOpen).toBe(false);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(await second.callTool("ping", {})).toEqual({ text: "pong", isError: false });
    expect(openMcpConnections(url)).toBe(1);
    await chat.close();
    expect(openMcpConnections(url)).toBe(0);
  });

  it("the Worker's own /mcp in-process with the user's token: the task tools are loaded", async () => {
    const user = await createUser();
    const chat = session("http://localhost/mcp", { fetch: workerFetch });
    const result = await ask(chat, "show my tasks", `Bearer ${user.token}`);
    expect(result.warnings).toEqual([]);
    expect(result.tool_calls.map((call) => call.name)).toEqual(["list_tasks"]);
    expect(result.tool_calls[0]!.result).toBe("No tasks match.");
    await chat.close();
  });
});

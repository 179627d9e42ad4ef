/**
 * `npx mcp-edge chat` as a user runs it: the real CLI process (bin/mcp-edge.js) against the real
 * fixture MCP server (test/upstreams/fixture-server.ts) and against nothing at all. The Worker's
 * own /api/chat is covered in the workers project; this is the same agent core in Node.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptsConnections, freePort } from "../../bin/lib/ports";

const ROOT = resolve(import.meta.dirname, "../..");
let fixture: ChildProcess | undefined;
let base = "";

beforeAll(async () => {
  const port = await freePort();
  fixture = spawn(process.execPath, ["--import", "tsx", "test/upstreams/fixture-server.ts", String(port)], { cwd: ROOT, stdio: "ignore" });
  base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300 && !(await acceptsConnections(port)); i++) await new Promise((r) => setTimeout(r, 100));
});

afterAll(() => {
  fixture?.kill("SIGTERM");
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin?: string): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["bin/mcp-edge.js", "chat", ...args], {
      cwd: ROOT,
      // No model configured and no MCP_URL inherited: the local router, and only what the test passes.
      env: { ...process.env, MCP_URL: "", MCP_TOKEN: "", AGENT_OPENAI_BASE_URL: "", AGENT_MODEL: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

describe("mcp-edge chat", () => {
  it("-m: prints the tool call, its result and the reply; an MCP tool named like an own tool replaces it", async () => {
    const url = `${base}/conflict/mcp`;
    const run = await cli(["--url", url, "-m", "what time is it?"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("  → current_time {}");
    expect(run.stdout).toMatch(/ {2}← current_time \(\d+ ms\): fixture current_time/);
    expect(run.stdout).toContain("Your local time:\nfixture current_time");
    expect(run.stderr).toContain(`warning: MCP tool current_time from ${url} replaces the agent's own current_time`);
    // The core's structured log lines stay out of the terminal without --verbose.
    expect(run.stdout).not.toContain('{"level"');
  });

  it("an unreachable MCP_URL is a warning; the agent still answers with its own tools", async () => {
    const run = await cli(["--url", "http://127.0.0.1:1/mcp", "-m", "which tools do you have?", "--time-zone", "Asia/Karachi"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^warning: Could not load tools from the MCP server at http:\/\/127\.0\.0\.1:1\/mcp: .+ Running with the agent's own tools only\.$/m,
    );
    expect(run.stdout).toContain("  → list_my_tools {}");
    expect(run.stdout).toContain("- current_time (agent)");
  });

  it("--json prints the same answer shape as POST /api/chat", async () => {
    const run = await cli(["--url", `${base}/echo/mcp`, "--json", "-m", "hello"]);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout.trim()) as { reply: string; tool_calls: unknown[]; model: string; warnings: string[] };
    expect(answer.model).toBe("local-intent-router");
    expect(answer.tool_calls).toEqual([]);
    expect(answer.warnings).toEqual([]);
    expect(answer.reply).toMatch(/^Hi!/);
  });

  it("piped stdin: one message per line, in one conversation", async () => {
    const run = await cli(["--url", `${base}/empty/mcp`], "hello\n\nkya time hai\n/exit\nnot read\n");
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`warning: The MCP server at ${base}/empty/mcp has no tools`);
    expect(run.stdout).toMatch(/^Hi!/);
    expect(run.stdout).toContain("Aap ka local waqt:");
    expect(run.stdout).not.toContain("not read");
  });
});

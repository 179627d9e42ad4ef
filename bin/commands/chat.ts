/**
 * mcp-edge chat [--url URL] [--token TOKEN] [-m "message"] [--time-zone ZONE] [--json] [--verbose]
 *
 * The Worker's chat agent, run in Node against any MCP server: the same core (ChatSession: lazy
 * MCP tool loading that never fails start-up, the agent's own tools, the AI SDK tool loop) with
 * the model chosen from AGENT_OPENAI_BASE_URL / AGENT_OPENAI_API_KEY / AGENT_MODEL, else the
 * offline intent router. A REPL on a terminal, one message with -m, or one message per line of
 * piped stdin. Every tool call and its result is printed before the reply.
 */
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import type { ChatEvent, ChatResult, HistoryMessage } from "../../workers/agent/agent.types";
import { ChatSession } from "../../workers/agent/chat-session";

export const CHAT_USAGE = `mcp-edge chat [--url URL] [--token TOKEN] [-m "message"] [--time-zone ZONE] [--json] [--verbose]
  MCP_URL / MCP_TOKEN are the defaults for --url / --token; without a URL the agent has only its own tools.
  Model: AGENT_OPENAI_BASE_URL (+ AGENT_OPENAI_API_KEY, AGENT_MODEL) for an OpenAI-compatible endpoint,
  else the offline intent router. In the REPL: /reset forgets the conversation, /exit leaves.`;

const HISTORY_FOR_MODEL = 20;

/**
 * The core logs structured JSON lines (for Workers Logs); in a terminal they would drown the chat.
 * Its start-up problems reach the user as warnings anyway, so the lines are shown only with --verbose.
 */
function routeStructuredLogs(verbose: boolean): void {
  for (const method of ["log", "warn", "error"] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0].startsWith('{"level":')) {
        if (verbose) process.stderr.write(`${args[0]}\n`);
        return;
      }
      original(...args);
    };
  }
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function printEvent(event: ChatEvent): void {
  if (event.event === "tool_call") console.log(`  → ${event.data.name} ${JSON.stringify(event.data.arguments)}`);
  if (event.event === "tool_result") {
    const mark = event.data.is_error ? "✗" : "←";
    console.log(`  ${mark} ${event.data.name} (${event.data.duration_ms} ms): ${oneLine(event.data.result)}`);
  }
}

export async function runChat(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      message: { type: "string", short: "m" },
      "time-zone": { type: "string" },
      json: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(CHAT_USAGE);
    return 0;
  }
  routeStructuredLogs(values.verbose);
  const url = values.url ?? process.env["MCP_URL"];
  const token = values.token ?? process.env["MCP_TOKEN"];
  const timeZone = values["time-zone"] ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const session = new ChatSession({
    mcpUrl: url,
    model: {
      AGENT_MODEL: process.env["AGENT_MODEL"],
      AGENT_OPENAI_BASE_URL: process.env["AGENT_OPENAI_BASE_URL"],
      AGENT_OPENAI_API_KEY: process.env["AGENT_OPENAI_API_KEY"],
    },
  });
  const history: HistoryMessage[] = [];
  let warned = false;
  let failures = 0;

  const send = async (message: string): Promise<void> => {
    let result: ChatResult;
    try {
      result = await session.chat({
        message,
        history: history.slice(-HISTORY_FOR_MODEL),
        authorization: token ? `Bearer ${token}` : undefined,
        timeZone,
        onEvent: values.json ? undefined : printEvent,
      });
    } catch (error) {
      failures++;
      console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const at = new Date().toISOString();
    history.push({ role: "user", text: message, at }, { role: "assistant", text: result.reply, tool_calls: result.tool_calls, at });
    if (values.json) {
      console.log(JSON.stringify(result));
      return;
    }
    if (!warned) {
      for (const warning of result.warnings) console.error(`warning: ${warning}`);
      warned = true;
    }
    console.log(`${result.reply}\n`);
  };

  try {
    if (values.message !== undefined) {
      if (values.message.trim() === "") throw new Error("-m needs a message");
      await send(values.message);
      return failures > 0 ? 1 : 0;
    }
    const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY === true });
    if (process.stdin.isTTY) {
      console.log(`mcp-edge chat — ${url ? `MCP tools from ${url}` : "no MCP_URL: the agent's own tools only"}; /exit to leave`);
      lines.setPrompt("you> ");
      lines.prompt();
    }
    for await (const line of lines) {
      const message = line.trim();
      if (message === "/exit" || message === "/quit") break;
      if (message === "/reset") history.length = 0;
      else if (message !== "") await send(message);
      if (process.stdin.isTTY) lines.prompt();
    }
    lines.close();
    return failures > 0 ? 1 : 0;
  } finally {
    await session.close();
  }
}

/**
 * The tools the agent can call in one turn: its own (current_time, list_my_tools) plus the MCP
 * server's. An MCP tool with the name of an own tool replaces it, with a warning naming both.
 * Identity properties are hidden from the model and injected on every call (identity.ts).
 */
import type { ChatIdentity } from "./agent.types";
import { hideIdentity, injectIdentity } from "./identity";
import type { McpConnection, McpToolSpec, ToolCallOutcome } from "./mcp-tool-loader";
import { resolveTimeZone } from "./intent/zoned-time";

export interface TurnContext {
  now: Date;
  /** IANA zone of the user; UTC when unknown. */
  timeZone: string;
  identity: ChatIdentity | undefined;
}

export interface AgentTool {
  name: string;
  description: string;
  /** The JSON Schema the model sees (identity properties removed). */
  inputSchema: Record<string, unknown>;
  /** "agent" for the agent's own tools, else the MCP server's URL. */
  source: string;
  execute(args: Record<string, unknown>, context: TurnContext): Promise<ToolCallOutcome>;
}

function describeTime(now: Date, timeZone: string): string {
  const local = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    dateStyle: "full",
    timeStyle: "short",
    hourCycle: "h23",
  }).format(now);
  const offset = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(now)
    .find((part) => part.type === "timeZoneName")?.value;
  return `${local} (${timeZone}${offset ? `, ${offset}` : ""}); UTC ${now.toISOString()}`;
}

/** The agent's own tools; `listed` reads the final tool set of the turn, for list_my_tools. */
export function ownTools(listed: () => readonly AgentTool[]): AgentTool[] {
  return [
    {
      name: "current_time",
      description: "The user's current local date and time (and the UTC instant). Optional time_zone: an IANA zone such as Asia/Karachi.",
      inputSchema: {
        type: "object",
        properties: { time_zone: { type: "string", description: "IANA time zone; the user's own when omitted" } },
      },
      source: "agent",
      async execute(args, context) {
        const asked = typeof args["time_zone"] === "string" ? args["time_zone"] : undefined;
        const zone = asked ? resolveTimeZone(asked) : context.timeZone;
        if (asked && zone !== asked) return { text: `Unknown time zone "${asked}": use an IANA name such as Asia/Karachi`, isError: true };
        return { text: describeTime(context.now, zone), isError: false };
      },
    },
    {
      name: "list_my_tools",
      description: "Lists every tool this agent can use right now, with where it comes from.",
      inputSchema: { type: "object", properties: {} },
      source: "agent",
      async execute() {
        const lines = listed().map(
          (tool) => `- ${tool.name} (${tool.source === "agent" ? "agent" : `MCP ${tool.source}`}): ${firstSentence(tool.description)}`,
        );
        return { text: lines.join("\n"), isError: false };
      },
    },
  ];
}

function firstSentence(text: string): string {
  const sentence = /^.*?[.!?](?:\s|$)/.exec(text)?.[0] ?? text;
  return sentence.trim().slice(0, 160);
}

export function mcpTool(spec: McpToolSpec, connection: McpConnection): AgentTool {
  const shape = hideIdentity(spec.inputSchema);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: shape.schema,
    source: connection.url,
    execute: (args, context) => connection.callTool(spec.name, injectIdentity(args, shape, context.identity)),
  };
}

/** Own tools first, each replaced by an MCP tool of the same name (with a warning). */
export function mergeTools(own: readonly AgentTool[], mcp: readonly AgentTool[]): { tools: AgentTool[]; warnings: string[] } {
  const byName = new Map<string, AgentTool>();
  for (const tool of own) byName.set(tool.name, tool);
  const warnings: string[] = [];
  for (const tool of mcp) {
    const replaced = byName.get(tool.name);
    if (replaced?.source === "agent") {
      warnings.push(`MCP tool ${tool.name} from ${tool.source} replaces the agent's own ${replaced.name}`);
    }
    byName.set(tool.name, tool);
  }
  return { tools: [...byName.values()], warnings };
}

/** The router's public shapes. The agent executes `tool_calls` as given and shows `reply` text as is. */

export interface ToolCall {
  /** A task tool name, always one of `RouteOptions.tools`. */
  name: string;
  /** Arguments named exactly as the tool's input schema (workers/tasks/tasks.schema.ts). */
  arguments: Record<string, unknown>;
}

export type RoutedIntent = { kind: "tool_calls"; calls: ToolCall[]; reply_hint: string } | { kind: "reply"; text: string };

export interface RouteOptions {
  /** The moment relative dates ("tomorrow", "in 2 hours") are computed from. */
  now: Date;
  /** IANA zone the user speaks in ("Asia/Karachi"); UTC when absent or unknown. */
  timeZone?: string;
  /** Tool names the agent can execute; the router never returns a call outside this list. */
  tools: readonly string[];
}

/** A half-open range [start, end) of the normalised message, so extractors can cut their words out of titles. */
export interface Span {
  start: number;
  end: number;
}

/** What one intent module proposes before tool availability is checked. */
export type Proposal =
  { kind: "call"; call: ToolCall; hint: string; fallback?: { call: ToolCall; hint: string } } | { kind: "ask"; text: string };

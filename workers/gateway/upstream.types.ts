/**
 * What crosses the RPC boundary between the gateway service and a source's Durable Object.
 * No MCP SDK types, so the domain side stays MCP-free. Free-form JSON (schemas, arguments,
 * results) travels as JSON text: RPC types cannot carry `unknown`, and a recursive JSON type
 * is too deep for them; the receiving side parses and checks it.
 */
import { z } from "zod";
import type { CallStats } from "./call-stats";

/**
 * How the gateway reaches a source. `stdio` sources are served by `mcp-edge bridge` (Workers cannot
 * spawn processes): the gateway speaks streamable HTTP to the bridge and passes `env` along.
 */
export type UpstreamTransport = "streamable_http" | "sse" | "stdio";

/** Everything the Durable Object needs to reach the upstream; secrets arrive decrypted, are never stored by it. */
export interface UpstreamConfig {
  sourceId: number;
  slug: string;
  url: string;
  /** From mcp_env_vars; never includes the gateway client's own Authorization. */
  headers: Record<string, string>;
  lifecycle: "transient" | "singleton";
  timeoutMs: number;
  /**
   * ALLOW_PRIVATE_UPSTREAMS as the Worker reads it for this call: the Durable Object checks `url`
   * against it every time it opens a connection (upstream-client.ts connectUpstream).
   */
  allowPrivateUpstreams: boolean;
  /**
   * Changes whenever url, headers, transport, env or allowPrivateUpstreams change: a warm connection
   * made with another fingerprint is dropped, so one opened under an older setting is never reused.
   */
  fingerprint: string;
  /** Missing means streamable_http (sources registered before transports existed). */
  transport?: UpstreamTransport | undefined;
  /**
   * stdio only: the subprocess environment (decrypted mcp_env_vars), sent to the bridge in the
   * `Mcp-Bridge-Env` header; the bridge applies only the names its manifest / --env-allow declares.
   */
  env?: Record<string, string> | undefined;
}

const jsonObject = z.record(z.string(), z.unknown());

export const upstreamToolSchema = z.object({
  name: z.string().min(1),
  title: z.string().nullable(),
  description: z.string(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.nullable(),
  annotations: jsonObject,
});
export type UpstreamTool = z.output<typeof upstreamToolSchema>;
export const upstreamToolsSchema = z.array(upstreamToolSchema);

/**
 * `tool_error` is the upstream's own `isError` answer; `circuit_open` means no request was sent;
 * `busy` means the upstream refused for lack of capacity (a full bridge) and says when to retry.
 * `url_refused` means the source's URL is not allowed (any more) by the upstream URL rules, so no
 * connection was opened.
 */
export type UpstreamErrorType = "connection" | "protocol" | "timeout" | "tool_error" | "circuit_open" | "busy" | "url_refused";
export type CallOutcome = "ok" | UpstreamErrorType;

export interface UpstreamCallMeta {
  source: string;
  execution_time_ms: number;
  error_type?: UpstreamErrorType;
}

export interface UpstreamCallOutcome {
  /** The tools/call result as JSON, its `_meta` merged with `meta`. */
  resultJson: string;
  meta: UpstreamCallMeta;
}

export interface UpstreamCall {
  name: string;
  /** The call's arguments object as JSON. */
  argumentsJson: string;
  /** Annotated idempotentHint upstream: safe to retry after the request may have been sent. */
  idempotent: boolean;
}

export interface DiscoveryOutcome {
  ok: boolean;
  /** UpstreamTool[] as JSON; "[]" when discovery failed. */
  toolsJson: string;
  protocolVersion: string | null;
  error: { type: UpstreamErrorType; message: string } | null;
  /** When the upstream's tools/list cache hint (2026-07-28 `ttlMs`) expires, ISO; null without one. */
  inventoryStaleAt: string | null;
}

export interface BreakerSnapshot {
  state: "closed" | "open" | "half_open";
  failures: number;
  openedAt: number | null;
}

/** A source's Durable Object as `status()` reports it (health, admin tools). */
export interface SourceStatus {
  breaker: BreakerSnapshot;
  protocolVersion: string | null;
  sessionId: string | null;
  warm: boolean;
  toolCount: number;
  /** When the upstream's tools/list cache hint expires (ISO); null without a hint. */
  inventory_stale_at: string | null;
  /** The window of the last calls (call-stats.ts). */
  calls: CallStats;
}

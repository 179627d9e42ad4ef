/**
 * What crosses the RPC boundary between the gateway's services and a source's Durable Object.
 * No MCP SDK types, so the domain side stays MCP-free. Free-form JSON (schemas, arguments,
 * results) travels as JSON text: RPC types cannot carry `unknown`, and a recursive JSON type
 * is too deep for them; the receiving side parses and checks it.
 */
import * as z from "zod";
import type { McpErrorType } from "../../mcp-client/errors";
import type { ForwardedMethod } from "../../mcp-client/upstream-request";

/**
 * How the gateway reaches a source. `stdio` sources are served by `mcp-edge bridge` (Workers cannot
 * spawn processes): the gateway speaks streamable HTTP to the bridge and passes `env` along.
 */
export type UpstreamTransport = "streamable_http" | "sse" | "stdio";

/**
 * Learned at discovery: a `stateless` upstream keeps no session between requests (2026-07-28, or
 * 2025-era without a session id after initialize) and is called straight from the Worker; a
 * `sessionful` one (a session id, legacy SSE, stdio through the bridge) through its Durable Object.
 */
export type UpstreamKind = "stateless" | "sessionful";

/** Everything needed to reach the upstream; secrets arrive decrypted and are never stored by the Durable Object. */
export interface UpstreamConfig {
  sourceId: number;
  slug: string;
  url: string;
  /** From mcp_env_vars; never includes the gateway client's own Authorization. */
  headers: Record<string, string>;
  lifecycle: "transient" | "singleton";
  timeoutMs: number;
  /**
   * ALLOW_PRIVATE_UPSTREAMS as the Worker reads it for this call: `url` is checked against it every
   * time a connection is opened (upstream-url.ts).
   */
  allowPrivateUpstreams: boolean;
  /** SELF_ORIGIN as the Worker reads it: a `url` on it is refused every time a connection is opened (decision 0057). */
  selfOrigin?: string | undefined;
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
  /**
   * Set with an owner's upstream OAuth token in `headers` (upstream-authorization.ts#withBearer):
   * the resource (RFC 8707) it was issued for. Discovery and both call paths send nothing to a
   * `url` it does not cover (bearer-resource.ts) and answer `authorization_required` instead.
   */
  bearerResource?: string | undefined;
}

const jsonObject = z.record(z.string(), z.unknown());

/** A tool as listed from its upstream, its text already cleaned and bounded (upstream-connection.ts). */
export const upstreamToolSchema = z.object({
  name: z.string().min(1),
  title: z.string().nullable(),
  description: z.string(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.nullable(),
  annotations: jsonObject,
  /** Its MCP Apps `_meta.ui` as the upstream sent it (decision 0068); null without a UI. Absent in objects of an older build. */
  ui: jsonObject.nullable().optional(),
  /** What cleaning and bounding changed in its text ("description: removed 12 Unicode tag characters"). */
  warnings: z.array(z.string()).default([]),
});
export type UpstreamTool = z.output<typeof upstreamToolSchema>;
export const upstreamToolsSchema = z.array(upstreamToolSchema);

/**
 * A call's typed failures: the client's (`connection`, `protocol`, `timeout`, `busy`), the
 * upstream's own `isError` answer (`tool_error`), `circuit_open` (no request was sent) and
 * `url_refused` (the source's URL is not allowed, any more, by the upstream URL rules, so no
 * connection was opened), `authorization_required` (the source's upstream needs its owner to
 * connect their account, or to grant more scopes: nothing was sent, or the upstream refused), and
 * `result_too_large` (the upstream's answer passed GATEWAY_MAX_RESULT_BYTES and was cut off while
 * it streamed in).
 */
export type UpstreamErrorType =
  McpErrorType | "tool_error" | "circuit_open" | "url_refused" | "authorization_required" | "result_too_large";
export type CallOutcome = "ok" | UpstreamErrorType;

export interface UpstreamCallMeta {
  source: string;
  execution_time_ms: number;
  error_type?: UpstreamErrorType;
  /** `insufficient_scope`: the scopes the upstream's challenge named. */
  required_scope?: string;
}

/** A sessionful call's answer from the Durable Object. */
export interface UpstreamCallOutcome {
  /** The tools/call result as JSON, its `_meta` merged with `meta`. */
  resultJson: string;
  meta: UpstreamCallMeta;
}

/** The tool's declared output schema as far as a call must know it: none, an object schema, or another root. */
export type OutputKind = "none" | "object" | "other";

export interface UpstreamCall {
  name: string;
  /** The call's arguments object as JSON. */
  argumentsJson: string;
  /** Annotated idempotentHint upstream: safe to retry after the request may have been sent. */
  idempotent: boolean;
  /** What the result must look like (source-call-result.ts#resultProblem). */
  output: OutputKind;
  /** The most bytes the upstream's answer may have (GATEWAY_MAX_RESULT_BYTES), counted while it streams in. */
  maxResultBytes: number;
}

/** A request beyond tools/call forwarded to a source (decision 0068): a list, a read, a prompt, a completion. */
export interface UpstreamForward {
  method: ForwardedMethod;
  /** Its params object as JSON. */
  paramsJson: string;
  /** The most bytes the upstream's answer may have (GATEWAY_MAX_RESULT_BYTES), counted while it streams in. */
  maxResultBytes: number;
}

/** How a forwarded request ended, on either call path. */
export interface UpstreamForwardOutcome {
  /** The upstream's answer as JSON — `{ result }` or the JSON-RPC `{ error }` it answered; null when none came. */
  answerJson: string | null;
  meta: UpstreamCallMeta;
  /** Why no answer came (`<type>: <message>`); null when one did. */
  failure: string | null;
}

/**
 * The gateway's own request that the owner connect their account, made by SourceCalls from its
 * `authorization_required` outcome (upstream-authorization.ts) — never read from a result — and
 * only with a connect link on the gateway's own origin: the one thing /mcp asks a client to open.
 */
export interface ConnectRequest {
  state: "needs_authorization" | "authorization_expired";
  url: string;
  scope: string | null;
}

/** A warm sessionful connection's new tool list (after list_changed), for the Worker to write to D1. */
export interface InventoryChange {
  sourceId: number;
  /** UpstreamTool[] as JSON. */
  toolsJson: string;
  inventoryStaleAt: string | null;
}

/** How a discovery ended, as the source's object needs it to set its next rediscovery alarm (decision 0067). */
export interface RediscoveryReport {
  sourceId: number;
  succeeded: boolean;
  /** The upstream's cache hint from this discovery, if it succeeded and gave one. */
  inventoryStaleAt: string | null;
}

/** What the Worker did when a source's alarm rang: rediscovered it, or nothing because it is disabled or gone. */
export type RediscoveryRun = "rediscovered" | "disabled" | "gone";

export interface DiscoveryOutcome {
  ok: boolean;
  /** UpstreamTool[] as JSON; "[]" when discovery failed. */
  toolsJson: string;
  /** What the connection showed; null when discovery failed. */
  kind: UpstreamKind | null;
  protocolVersion: string | null;
  /** A 2026-07-28 upstream's `server/discover` result as JSON; null otherwise. */
  discoverJson: string | null;
  error: { type: UpstreamErrorType; message: string } | null;
  /** When the upstream's tools/list cache hint (2026-07-28 `ttlMs`) expires, ISO; null without one. */
  inventoryStaleAt: string | null;
  /** The breaker after this discovery (a success closes it, a failure may open it). */
  breaker: BreakerSnapshot;
}

export interface BreakerSnapshot {
  state: "closed" | "open" | "half_open";
  failures: number;
  openedAt: number | null;
}

/** What a call did to the upstream's health: a breaker `failure`, a `success`, or `none` (a refused URL). */
export type BreakerEffect = "success" | "failure" | "none";

/** One stateless call, reported to the source's Durable Object after the answer was sent. */
export interface CallReport {
  /** Start, epoch ms. */
  at: number;
  ms: number;
  /** "<type>: <message>" for a failed call, null for a successful one (the call window's record). */
  error: string | null;
  breaker: BreakerEffect;
  /** The call was the half-open probe the object admitted: its verdict ends the probe. */
  probe: boolean;
}

/** The object's answer to "may this isolate send the half-open probe?". */
export interface ProbeVerdict {
  allowed: boolean;
  /** When refused: how long until asking again makes sense. */
  retryAfterMs: number;
  breaker: BreakerSnapshot;
}

/** The window of a source's last calls as `status()` reports it (computed by call-stats.ts). */
export interface CallStats {
  window: number;
  errors: number;
  error_rate: number;
  p50_ms: number | null;
  p95_ms: number | null;
  last_success_at: string | null;
  last_error_at: string | null;
  last_error: string | null;
}

/** A source's Durable Object as `status()` reports it (health, admin tools, tests). */
export interface SourceStatus {
  breaker: BreakerSnapshot;
  protocolVersion: string | null;
  sessionId: string | null;
  warm: boolean;
  toolCount: number;
  /** When the upstream's tools/list cache hint expires (ISO); null without a hint. */
  inventory_stale_at: string | null;
  /** The window of the last calls (call-stats.ts), stateless calls' reports included. */
  calls: CallStats;
  /**
   * The RPCs this instance has served since it started, by method (status itself not counted):
   * how much of the call path reaches the object. In memory only.
   */
  rpc: Record<string, number>;
}

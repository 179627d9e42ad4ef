/**
 * A refusal (mcp/refusal.ts) framed for the request's protocol revision, by mcp-edge itself:
 * - a JSON-RPC error (envelope, params, a batch over the budget) as JSON with its HTTP status;
 * - the 403 step-up challenge as the access layer made it;
 * - a tools/call the budget refused as the result a failing tool answers (`errorResult`, decision
 *   0029), in the request's revision: 2025-03-26 / 2025-06-18 / 2025-11-25 a JSON-RPC result sent as
 *   JSON (the client accepts JSON; the SDK would send the same message as a one-event SSE stream),
 *   2026-07-28 with that revision's result fields (`resultType: "complete"`, the server's identity in
 *   `_meta`).
 *
 * The SDK checks a request before any tool runs (Accept, Content-Type, the revision, the 2026-07-28
 * envelope and standard headers, the call's params), and such a check answers first. So a refused
 * call is framed here only when the request passes what the SDK checks — its revision classified by
 * the SDK's own `classifyInboundRequest`, its headers those the SDK accepts as they are, its call well
 * formed and of a tool the server serves. Any other request is left to the SDK (undefined), which
 * answers its own error or, if it serves the call after all, the refusal through the tool wrapper
 * (`ToolContext.callRefused`). test/workerd/mcp/refused-call.test.ts compares both with the SDK.
 */
import { classifyInboundRequest, isJsonContentType, SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import { isJsonObject } from "../lib/json";
import { jsonRpcError, jsonRpcResult } from "./json-rpc";
import type { McpCall, McpPost } from "./post";
import type { CallRefusal, RequestRefusal } from "./refusal";
import { toolScopes } from "./scope-gate";
import type { McpServerDefinition } from "./server-definition";
import { errorResult } from "./tool";

/** The 2025 revisions the SDK's stateless lane serves (no header: 2025-03-26). */
const LEGACY_REVISIONS = new Set(["2025-03-26", "2025-06-18", "2025-11-25"]);
const MODERN_REVISION = "2026-07-28";
/** An Mcp-Name header in this form is Base64 the SDK decodes before comparing (SEP-2243). */
const BASE64_HEADER_PREFIX = "=?base64?";

/** The answer to a refusal of the whole request. */
export function answerRefusal(refusal: RequestRefusal): Response {
  if (refusal.kind === "http") return refusal.response;
  return jsonRpcError(refusal.id, refusal.error, { status: refusal.status, ...(refusal.headers ? { headers: refusal.headers } : {}) });
}

/** The answer to a refused call, framed here; undefined leaves the request to the SDK (see above). */
export function answerRefusedCall({ call, error }: CallRefusal, post: McpPost, definition: McpServerDefinition): Response | undefined {
  const { headers } = post.request;
  const { name } = call;
  if (name === undefined || toolScopes(definition, name) === undefined || !isJsonObject(call.args)) return undefined;
  if (!call.message.jsonRpc || !isJsonContentType(headers.get("content-type"))) return undefined;
  const route = classifyInboundRequest({
    httpMethod: post.request.method,
    ...(post.versionHeader === undefined ? {} : { protocolVersionHeader: post.versionHeader }),
    body: post.body,
  });
  if (route.kind === "legacy") return legacyLaneAccepts(post) ? jsonRpcResult(call.id, errorResult(error)) : undefined;
  if (route.kind !== "modern" || route.messageKind !== "request" || route.classification.revision !== MODERN_REVISION) return undefined;
  const standardHeaders =
    headers.get("mcp-protocol-version") === MODERN_REVISION &&
    headers.get("mcp-method") === "tools/call" &&
    headers.get("mcp-name") === name &&
    !name.startsWith(BASE64_HEADER_PREFIX);
  if (!standardHeaders) return undefined;
  const result = errorResult(error);
  const serverInfo = { name: `mcp-edge-${definition.name}`, version: definition.version };
  return jsonRpcResult(call.id, { ...result, _meta: { ...result._meta, [SERVER_INFO_META_KEY]: serverInfo }, resultType: "complete" });
}

/** What the SDK's stateless 2025 lane requires before serving a request: both answer types accepted, a revision it serves. */
function legacyLaneAccepts(post: McpPost): boolean {
  const accept = post.request.headers.get("accept") ?? "";
  const revision = post.versionHeader ?? "2025-03-26";
  return accept.includes("application/json") && accept.includes("text/event-stream") && LEGACY_REVISIONS.has(revision);
}

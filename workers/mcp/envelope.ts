/**
 * JSON-RPC envelope rules every MCP endpoint applies before anything else reads a message — the
 * fast paths and the SDK path alike, so they can never disagree:
 * - A numeric id must be an integer JSON carries exactly (within ±(2^53−1)). A 5,000-digit id
 *   parses to Infinity and would be echoed as `null`; 12345678901234567 would come back as
 *   …568. Neither is the client's id, so such a message is refused (id null, as JSON-RPC asks
 *   when the id cannot be read) and never runs. Strings carry any id.
 * - Batches (a JSON array of messages) were removed in protocol revision 2025-06-18: refused when
 *   MCP-Protocol-Version names that revision or a later one. Without the header a client speaks
 *   2025-03-26, which allows them (decision 0026).
 */
import { isJsonObject } from "../lib/json";

/** The first revision without JSON-RPC batching; revisions are dates, so later ones compare greater. */
const BATCHING_REMOVED_IN = "2025-06-18";

/** An id both paths accept: a string, or an integer that survives a JSON round trip unchanged. */
export function isRequestId(value: unknown): value is string | number {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

function invalidRequest(message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: ${message}` } }), {
    status: 400,
    headers: { "content-type": "application/json" },
  });
}

function hasUnreadableId(message: unknown): boolean {
  return isJsonObject(message) && "id" in message && typeof message["id"] === "number" && !isRequestId(message["id"]);
}

/** The refusal for a parsed POST body that breaks an envelope rule, or undefined when it may be served. */
export function refuseEnvelope(body: unknown, request: Request): Response | undefined {
  const version = request.headers.get("mcp-protocol-version");
  if (Array.isArray(body) && version !== null && version >= BATCHING_REMOVED_IN) {
    return invalidRequest(`JSON-RPC batches were removed in protocol revision ${BATCHING_REMOVED_IN} (this request speaks ${version}); send one message per request`);
  }
  if ((Array.isArray(body) ? body : [body]).some(hasUnreadableId)) {
    return invalidRequest(
      `a numeric id must be an integer between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, which JSON carries exactly; use a string id for anything else`,
    );
  }
  return undefined;
}

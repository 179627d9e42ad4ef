/**
 * JSON-RPC on the wire, written in one place: what an id may be, and every answer mcp-edge frames
 * itself instead of the SDK — the fast paths' results (mcp/fast-path.ts, the gateway's call fast
 * path) and the pipeline's refusals (mcp/refusal-answer.ts). The SDK frames everything else.
 */

export type RequestId = string | number;

/** An id every path accepts: a string, or an integer that survives a JSON round trip unchanged (decision 0026). */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

const JSON_TYPE = { "content-type": "application/json" } as const;

/** A result already serialised (a cached tool listing, an upstream's answer), answered as JSON. */
export function jsonRpcResultJson(id: RequestId, resultJson: string): Response {
  return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`, { headers: JSON_TYPE });
}

export function jsonRpcResult(id: RequestId, result: unknown): Response {
  return jsonRpcResultJson(id, JSON.stringify(result));
}

/** An error answer; `id` null when the request's id could not be read (JSON-RPC 2.0 §5). */
export function jsonRpcError(
  id: RequestId | null,
  error: JsonRpcError,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error }), {
    status: init.status ?? 200,
    headers: { ...JSON_TYPE, ...init.headers },
  });
}

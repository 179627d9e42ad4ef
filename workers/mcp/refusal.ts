/**
 * What a check of the MCP pipeline (mcp/pipeline.ts) answers instead of serving a request: data,
 * not yet a Response, so one module frames every refusal for the request's protocol revision
 * (mcp/refusal-answer.ts).
 */
import type { AppError } from "../lib/errors";
import type { JsonRpcError, RequestId } from "./json-rpc";
import type { McpCall } from "./post";

/** A refusal of the request as a whole. */
export type RequestRefusal =
  /** A JSON-RPC error (an envelope rule, invalid params, a batch over the budget). */
  | { kind: "error"; id: RequestId | null; error: JsonRpcError; status: number; headers?: Record<string, string> }
  /** An HTTP answer made elsewhere: the 403 step-up challenge of the request's resource (auth/access.ts). */
  | { kind: "http"; response: Response };

/** One tools/call answered as a failing tool answers: an `isError` result carrying `error` (decision 0029). */
export interface CallRefusal {
  kind: "call";
  call: McpCall;
  error: AppError;
}

export type Refusal = RequestRefusal | CallRefusal;

/** JSON-RPC's Invalid Request, id null: the request as a whole cannot be served (HTTP 400). */
export function invalidRequest(message: string): RequestRefusal {
  return { kind: "error", id: null, status: 400, error: { code: -32600, message: `Invalid Request: ${message}` } };
}

/** JSON-RPC's Invalid params for request `id`, answered with HTTP 200 as the SDK answers its own. */
export function invalidParams(id: RequestId, message: string): RequestRefusal {
  return { kind: "error", id, status: 200, error: { code: -32602, message } };
}

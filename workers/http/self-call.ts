/**
 * The two steps of the SelfCalls app (workers/self-calls.ts) that the app the internet reaches does
 * not have:
 * - the gateway's mark on a SELF request — "this tool call is already counted for user N"
 *   (mcp-client/self-routed-fetch.ts) — becomes the request's typed `toolCallCountedFor`, which the
 *   tool-call limit compares with the user the request authenticated as;
 * - a SELF request for the gateway endpoint itself is refused: a gateway source cannot be this
 *   gateway (gateway/own-gateway-url.ts says why; registration refuses such a URL, this catches
 *   rows stored before that rule and any spelling of the URL it misses).
 *
 * Why the mark can be believed here: SelfCalls is a named entry point, which has no URL and is
 * reachable only through this Worker's own SELF binding, and SELF requests are made only by
 * self-routed-fetch.ts, which sets the mark for a call the gateway counted and removes it from any
 * other request. The default export never mounts this step, so the same header from outside means
 * nothing.
 */
import type { Handler, MiddlewareHandler } from "hono";
import { isJsonObject } from "../lib/json";
import { log } from "../lib/log";
import { isRequestId } from "../mcp/json-rpc";
import { TOOL_CALL_COUNTED_FOR_HEADER } from "../mcp-client/self-routed-fetch";
import type { AppEnv } from "./context";

/** A user id as self-routed-fetch.ts writes it; anything else is no mark (the call then spends as usual). */
const USER_ID = /^[1-9][0-9]{0,14}$/;

export const countedToolCall: MiddlewareHandler<AppEnv> = async (c, next) => {
  const mark = c.req.header(TOOL_CALL_COUNTED_FOR_HEADER);
  if (mark !== undefined && USER_ID.test(mark)) c.set("toolCallCountedFor", Number(mark));
  await next();
};

/**
 * JSON-RPC error code of the refusal below, beside the bridge's own codes (mcp-client/bridge-protocol.ts):
 * the gateway's MCP client reads it as a `protocol` error, which is neither retried nor counted
 * against the source's breaker.
 */
export const GATEWAY_SOURCE_IS_THIS_GATEWAY = -32052;

const REFUSAL = "a gateway source cannot be this gateway: its /mcp endpoint is the gateway itself (register a server such as /mcp/tasks instead)";

const rpcError = (id: string | number | null) => ({ jsonrpc: "2.0", id, error: { code: GATEWAY_SOURCE_IS_THIS_GATEWAY, message: REFUSAL } });

/** The ids of the requests (not notifications) a POST body carries, in order, and whether it was a batch; undefined when it carries none. */
function requestIds(body: unknown): { ids: (string | number)[]; batch: boolean } | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const ids = messages.flatMap((message) => (isJsonObject(message) && typeof message["method"] === "string" && isRequestId(message["id"]) ? [message["id"]] : []));
  return ids.length === 0 ? undefined : { ids, batch: Array.isArray(body) };
}

/**
 * Mounted on the SelfCalls app's `/mcp` ahead of everything else, so a refused hop authenticates
 * nothing and spends nothing. Every request it carries gets the JSON-RPC error above with its own
 * id, in an HTTP 200 answer: the gateway's client then settles that one request at once with a
 * typed error (an HTTP error status would read as the upstream failing — retried for an idempotent
 * tool, counted by the breaker — and an error without the request's id would leave the client
 * waiting for its answer until the timeout). Anything else (a GET for an SSE stream, a body
 * without a request) gets HTTP 403 with the same error. The body is read whole: only this
 * Worker's own requests arrive here, and the gateway's calls were size-checked where they entered.
 */
export const gatewayHopRefused: Handler<AppEnv> = async (c) => {
  let body: unknown;
  if (c.req.method === "POST") body = await c.req.raw.json().catch(() => undefined);
  const requests = requestIds(body);
  log.warn("refused a gateway source that is this gateway", { method: c.req.method, requests: requests?.ids.length ?? 0 });
  if (requests === undefined) return c.json(rpcError(null), 403);
  const answers = requests.ids.map(rpcError);
  return c.json(requests.batch ? answers : answers[0]!, 200);
};

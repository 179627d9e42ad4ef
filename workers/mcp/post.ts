/**
 * The one reader of an MCP POST: the body is read and parsed once, here, into an `McpPost`, and
 * every check, fast path and routing hook reads that — never the raw JSON again. The text stays
 * with it, to hand the SDK an untouched request when the SDK serves it (`forward`).
 *
 * Only what some reader needs is classified, and nothing is judged here: an id JSON cannot carry,
 * a batch under a revision without batches, params that are not an object are recorded as they
 * came, for the checks (mcp/pipeline.ts) to refuse and the SDK to answer in its own words.
 */
import { isJsonObject, type JsonObject } from "../lib/json";
import { isRequestId, type RequestId } from "./json-rpc";

/** The 2025 revisions whose plain requests the fast paths answer (their tools/call result shape is reproduced there). */
const FAST_REVISIONS = new Set(["2025-06-18", "2025-11-25"]);
const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const CALL_PARAM_KEYS = new Set(["name", "arguments"]);

export interface McpMessage {
  /** A JSON object with `"jsonrpc": "2.0"`. */
  jsonRpc: boolean;
  method: string | undefined;
  /** Its id when JSON carries it exactly (a string or safe integer); undefined for a notification. */
  id: RequestId | undefined;
  /** A numeric id JSON cannot carry exactly (a 5,000-digit id parses to Infinity): the envelope check refuses it. */
  unreadableId: boolean;
  /** `params` as sent; undefined when absent. */
  params: unknown;
  /** Keys beyond jsonrpc, id, method and params. */
  extraKeys: boolean;
  /** For a `tools/call` whose params object names a tool: that name. */
  toolName: string | undefined;
}

/**
 * A call with nothing but `jsonrpc: "2.0"`, id, method and params in its message, and nothing but a
 * name and an object of arguments in its params (no `_meta`, so no progress token, task or envelope):
 * what a routing hook may answer without the SDK.
 */
export interface PlainCall {
  id: RequestId;
  name: string;
  args: JsonObject;
}

/** A `tools/call` request (with an id): one unit of the caller's tool-call budget. */
export interface McpCall {
  id: RequestId;
  /** undefined when `params.name` is not a string (the SDK answers -32602; the call still counts). */
  name: string | undefined;
  /** `params.arguments` as sent; `{}` when absent, as the SDK treats it. */
  args: unknown;
  /** The call as a PlainCall, when it is one. */
  plain: PlainCall | undefined;
  message: McpMessage;
}

export interface McpPost {
  request: Request;
  /** The body as sent. */
  text: string;
  /** The parsed body; undefined when it is not JSON (the SDK answers the parse error in its own words). */
  body: unknown;
  /** A JSON array of messages (2025-03-26 batching). */
  batch: boolean;
  /** One entry per message of the body (one for a single message). */
  messages: readonly McpMessage[];
  /** Every tools/call request in it, in order. */
  calls: readonly McpCall[];
  /** It lists tools, or holds something unreadable (served with the whole catalog to be safe). */
  listsTools: boolean;
  /** The MCP-Protocol-Version header, when sent. */
  versionHeader: string | undefined;
  /**
   * The revision, when the headers are those of a plain 2025-06-18 / 2025-11-25 request the fast
   * paths may answer: that version, JSON content, and an Accept of both JSON and SSE.
   */
  fastRevision: string | undefined;
}

/** Anything in a body that is not a JSON object. */
const NOT_A_MESSAGE: McpMessage = {
  jsonRpc: false,
  method: undefined,
  id: undefined,
  unreadableId: false,
  params: undefined,
  extraKeys: false,
  toolName: undefined,
};

function messageOf(value: unknown): McpMessage {
  if (!isJsonObject(value)) {
    return NOT_A_MESSAGE;
  }
  const method = typeof value["method"] === "string" ? value["method"] : undefined;
  const rawId = value["id"];
  const params = value["params"];
  const name = method === "tools/call" && isJsonObject(params) ? params["name"] : undefined;
  return {
    jsonRpc: value["jsonrpc"] === "2.0",
    method,
    id: isRequestId(rawId) ? rawId : undefined,
    unreadableId: typeof rawId === "number" && !isRequestId(rawId),
    params,
    extraKeys: Object.keys(value).some((key) => !MESSAGE_KEYS.has(key)),
    toolName: typeof name === "string" ? name : undefined,
  };
}

function callOf(message: McpMessage): McpCall | undefined {
  const { id, toolName: name } = message;
  if (message.method !== "tools/call" || id === undefined) return undefined;
  const params = isJsonObject(message.params) ? message.params : undefined;
  const args = params?.["arguments"] ?? {};
  const onlyNameAndArguments = params !== undefined && Object.keys(params).every((key) => CALL_PARAM_KEYS.has(key));
  const plainCall = message.jsonRpc && !message.extraKeys && onlyNameAndArguments && name !== undefined && isJsonObject(args);
  const plain = plainCall ? { id, name, args } : undefined;
  return { id, name, args, plain, message };
}

/** Decided from headers alone. */
function fastRevisionOf(headers: Headers, version: string | undefined): string | undefined {
  if (version === undefined || !FAST_REVISIONS.has(version)) return undefined;
  const accept = headers.get("accept") ?? "";
  const acceptsBoth = accept.includes("application/json") && accept.includes("text/event-stream");
  return acceptsBoth && /^application\/json\b/i.test(headers.get("content-type") ?? "") ? version : undefined;
}

/** Classifies a POST whose body has been read as `text`. */
export function classifyPost(request: Request, text: string): McpPost {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const sent: readonly unknown[] = body === undefined ? [] : Array.isArray(body) ? body : [body];
  const batch = Array.isArray(body);
  const messages = sent.map(messageOf);
  const versionHeader = request.headers.get("mcp-protocol-version") ?? undefined;
  return {
    request,
    text,
    body,
    batch,
    messages,
    calls: messages.flatMap((message) => callOf(message) ?? []),
    listsTools: body === undefined || sent.some((message) => !isJsonObject(message) || message["method"] === "tools/list"),
    versionHeader,
    fastRevision: request.method === "POST" ? fastRevisionOf(request.headers, versionHeader) : undefined,
  };
}

/** Reads and classifies a POST's body (the only place it is read). */
export async function readPost(request: Request): Promise<McpPost> {
  return classifyPost(request, await request.text());
}

/** The request to hand the SDK: the body re-attached (built only when the SDK serves; copying a Request is not free). */
export function forwardPost(post: McpPost): Request {
  return new Request(post.request, { body: post.text });
}

/** The post's only message, when it is one message rather than a batch. */
export function singleMessage(post: McpPost): McpMessage | undefined {
  return post.batch ? undefined : post.messages[0];
}

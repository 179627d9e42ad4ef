/**
 * The hot path: `tools/list` and `tools/call` from 2025-06-18 / 2025-11-25 clients, answered
 * without building an McpServer and a transport for the request.
 *
 * Only the plain success path is taken here. Anything else — other methods, notifications,
 * batches, 2026-07-28 envelopes, progress tokens, list cursors, unknown tools, arguments that
 * fail validation, a missing or different protocol version — falls through to the SDK, which
 * stays the protocol authority. `tools/list` is the SDK's own answer, computed once per isolate
 * per protocol version and kept serialised; `tools/call` runs the same `invokeTool` the SDK path runs.
 * test/mcp/fast-path.test.ts checks both against the SDK's answers.
 */
import { isJsonObject } from "../lib/json";
import { isRequestId } from "./envelope";
import { describeIssues } from "../lib/validation";
import { invokeTool, type ToolContext, type ToolDefinition } from "./tool";

/** Revisions whose tools/call result shape the fast path reproduces (object structuredContent, as-is). */
const FAST_VERSIONS = new Set(["2025-06-18", "2025-11-25"]);
const ENVELOPE_PREFIX = "io.modelcontextprotocol/";

interface FastDefinition {
  name: string;
  tools: readonly ToolDefinition[];
}

interface JsonRpcCall {
  id: string | number;
  method: "tools/list" | "tools/call";
  params: Record<string, unknown>;
}

export type SdkFetch = (request: Request) => Promise<Response>;

/** Decided from headers alone, before the body is read. */
export function fastPathVersion(request: Request): string | undefined {
  if (request.method !== "POST") return undefined;
  const version = request.headers.get("mcp-protocol-version") ?? "";
  if (!FAST_VERSIONS.has(version)) return undefined;
  const accept = request.headers.get("accept") ?? "";
  const type = request.headers.get("content-type") ?? "";
  const acceptsBoth = accept.includes("application/json") && accept.includes("text/event-stream");
  return acceptsBoth && /^application\/json\b/i.test(type) ? version : undefined;
}

/** The message, if it is a single request the fast path may answer. */
function asFastCall(body: unknown): JsonRpcCall | undefined {
  if (!isJsonObject(body) || body["jsonrpc"] !== "2.0") return undefined;
  const { id, method } = body;
  const params = body["params"] ?? {};
  if (!isRequestId(id)) return undefined;
  if (method !== "tools/list" && method !== "tools/call") return undefined;
  if (!isJsonObject(params)) return undefined;
  const meta = params["_meta"];
  if (meta !== undefined) {
    if (!isJsonObject(meta)) return undefined;
    if ("progressToken" in meta || Object.keys(meta).some((key) => key.startsWith(ENVELOPE_PREFIX))) return undefined;
  }
  if (method === "tools/list" && params["cursor"] !== undefined) return undefined;
  return { id, method, params };
}

function jsonRpcResult(id: string | number, result: unknown): Response {
  return jsonRpcResponse(id, JSON.stringify(result));
}

/** `resultJson` is the result already serialised (the cached tool listing is, once). */
function jsonRpcResponse(id: string | number, resultJson: string): Response {
  return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`, {
    headers: { "content-type": "application/json" },
  });
}

/** The JSON-RPC result of a response the SDK framed as JSON or as a one-event SSE stream. */
async function sdkResult(response: Response): Promise<unknown> {
  const text = await response.text();
  const json = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text.split("\n").find((line) => line.startsWith("data: "))?.slice(6)
    : text;
  const message: unknown = json === undefined ? undefined : JSON.parse(json);
  if (!isJsonObject(message) || !("result" in message)) throw new Error(`SDK tools/list failed: ${text.slice(0, 200)}`);
  return message["result"];
}

/**
 * Per definition and protocol version: the SDK's tools/list result, serialised once. A string is
 * immutable, so nothing a request does can change what the next one is sent.
 */
const listings = new WeakMap<FastDefinition, Map<string, Promise<string>>>();

function toolListing(definition: FastDefinition, version: string, request: Request, sdk: SdkFetch): Promise<string> {
  let byVersion = listings.get(definition);
  if (!byVersion) listings.set(definition, (byVersion = new Map()));
  let listing = byVersion.get(version);
  if (!listing) {
    const probe = new Request(request.url, {
      method: "POST",
      headers: {
        host: new URL(request.url).host,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": version,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tools/list" }),
    });
    listing = sdk(probe)
      .then(sdkResult)
      .then((result) => JSON.stringify(result));
    listing.catch(() => byVersion.delete(version)); // a failed computation is retried next time
    byVersion.set(version, listing);
  }
  return listing;
}

const toolIndexes = new WeakMap<FastDefinition, Map<string, ToolDefinition>>();

function findTool(definition: FastDefinition, name: unknown): ToolDefinition | undefined {
  let index = toolIndexes.get(definition);
  if (!index) toolIndexes.set(definition, (index = new Map(definition.tools.map((tool) => [tool.name, tool]))));
  return typeof name === "string" ? index.get(name) : undefined;
}

/**
 * Answers `body` when the fast path applies, or returns undefined for the SDK to answer.
 * `request` supplies headers, URL and the abort signal; its body has already been read.
 */
export async function answerFast(
  body: unknown,
  version: string,
  request: Request,
  definition: FastDefinition,
  ctx: ToolContext,
  sdk: SdkFetch,
): Promise<Response | undefined> {
  const call = asFastCall(body);
  if (!call) return undefined;
  if (call.method === "tools/list") return jsonRpcResponse(call.id, await toolListing(definition, version, request, sdk));

  const tool = findTool(definition, call.params["name"]);
  if (!tool) return undefined;
  const parsed = tool.input.safeParse(call.params["arguments"] ?? {});
  if (!parsed.success) return undefined;
  const result = await invokeTool(tool, parsed.data, ctx, { signal: request.signal });
  if (!("isError" in result)) {
    // The SDK checks structured results against the declared outputSchema; so do we.
    const checked = tool.output.safeParse(result.structuredContent);
    if (!checked.success) {
      return jsonRpcResult(call.id, {
        isError: true,
        content: [
          {
            type: "text",
            text: `Output validation error: Invalid structured content for tool ${tool.name}: ${describeIssues(checked.error.issues)}`,
          },
        ],
      });
    }
  }
  return jsonRpcResult(call.id, result);
}

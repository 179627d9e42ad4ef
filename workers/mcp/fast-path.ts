/**
 * The built-in servers' hot path: `tools/list` and `tools/call` from 2025-06-18 / 2025-11-25
 * clients, answered without building an McpServer and a transport for the request.
 *
 * Only the plain success path is taken here. Anything else — other methods, notifications,
 * batches, 2026-07-28 envelopes, progress tokens, list cursors, unknown tools, arguments that
 * fail validation, a missing or different protocol version — falls through to the SDK, which
 * stays the protocol authority. `tools/list` is the SDK's own answer, computed once per isolate
 * per protocol version and kept serialised; `tools/call` runs the same `invokeTool` the SDK path runs.
 * test/workerd/mcp/fast-path.test.ts checks both against the SDK's answers.
 */
import { isJsonObject, type JsonObject } from "../lib/json";
import { describeIssues } from "../lib/validation";
import { serveWithSdk } from "./hosting";
import type { RequestId } from "./json-rpc";
import { type McpPost, singleMessage } from "./post";
import type { McpServerDefinition } from "./server-definition";
import { invokeTool, type ToolContext, type ToolDefinition } from "./tool";

const ENVELOPE_PREFIX = "io.modelcontextprotocol/";

interface FastMessage {
  id: RequestId;
  method: "tools/list" | "tools/call";
  params: JsonObject;
}

/** The post's message, if it is a single request the fast path may answer. */
function fastMessage(post: McpPost): FastMessage | undefined {
  const message = singleMessage(post);
  if (message === undefined || !message.jsonRpc || message.id === undefined) return undefined;
  const { id, method } = message;
  const params = message.params ?? {};
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

/** The JSON-RPC result of a response the SDK framed as JSON or as a one-event SSE stream. */
async function sdkResult(response: Response): Promise<unknown> {
  const text = await response.text();
  const json = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text
        .split("\n")
        .find((line) => line.startsWith("data: "))
        ?.slice(6)
    : text;
  const message: unknown = json === undefined ? undefined : JSON.parse(json);
  if (!isJsonObject(message) || !("result" in message)) throw new Error(`SDK tools/list failed: ${text.slice(0, 200)}`);
  return message["result"];
}

/**
 * Per definition and protocol version: the SDK's tools/list result, serialised once. A string is
 * immutable, so nothing a request does can change what the next one is sent.
 */
const listings = new WeakMap<McpServerDefinition, Map<string, Promise<string>>>();

function toolListing(definition: McpServerDefinition, version: string, request: Request, ctx: ToolContext): Promise<string> {
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
    listing = serveWithSdk(probe, definition, ctx)
      .then(sdkResult)
      .then((result) => JSON.stringify(result));
    listing.catch(() => byVersion.delete(version)); // a failed computation is retried next time
    byVersion.set(version, listing);
  }
  return listing;
}

const toolIndexes = new WeakMap<McpServerDefinition, Map<string, ToolDefinition>>();

function findTool(definition: McpServerDefinition, name: unknown): ToolDefinition | undefined {
  let index = toolIndexes.get(definition);
  if (!index) toolIndexes.set(definition, (index = new Map(definition.tools.map((tool) => [tool.name, tool]))));
  return typeof name === "string" ? index.get(name) : undefined;
}

/** A fast path's answer: the request's id and its result, serialised (the pipeline frames it). */
export interface FastAnswer {
  id: RequestId;
  resultJson: string;
}

/**
 * Answers a post of a 2025-06-18 / 2025-11-25 request whose headers allow it (`post.fastRevision`)
 * when the fast path applies to its message, or returns undefined for the SDK to answer.
 */
export async function answerFast(
  post: McpPost,
  version: string,
  definition: McpServerDefinition,
  ctx: ToolContext,
): Promise<FastAnswer | undefined> {
  const message = fastMessage(post);
  if (!message) return undefined;
  const { id } = message;
  if (message.method === "tools/list") return { id, resultJson: await toolListing(definition, version, post.request, ctx) };

  const tool = findTool(definition, message.params["name"]);
  if (!tool) return undefined;
  const parsed = tool.input.safeParse(message.params["arguments"] ?? {});
  if (!parsed.success) return undefined;
  const result = await invokeTool(tool, parsed.data, ctx, { signal: post.request.signal });
  if (!("isError" in result)) {
    // The SDK checks structured results against the declared outputSchema; so do we.
    const checked = tool.output.safeParse(result.structuredContent);
    if (!checked.success) {
      const refused = {
        isError: true,
        content: [
          {
            type: "text",
            text: `Output validation error: Invalid structured content for tool ${tool.name}: ${describeIssues(checked.error.issues)}`,
          },
        ],
      };
      return { id, resultJson: JSON.stringify(refused) };
    }
  }
  return { id, resultJson: JSON.stringify(result) };
}

/**
 * The requests beyond tools/call that the gateway forwards to a source (decision 0068): the lists
 * of resources, resource templates and prompts, a resource read, a prompt and a completion. One
 * shape for both eras and both call paths: the upstream's result, or the JSON-RPC error it
 * answered with — an answer, so not a failure of the upstream (its health is not in question).
 * A failure to reach it is thrown, classified by the caller as for a tool call.
 *
 * A list is read page by page to its end (at most MAX_LIST_PAGES pages), so /mcp lists a source's
 * whole list in one answer. A server that does not offer the capability (its initialize or
 * discover result says so) is not asked: its lists are empty, and anything else is "method not found".
 */
import { type Client, ProtocolError, type ServerCapabilities } from "@modelcontextprotocol/client";
import { isJsonObject, type JsonObject } from "../lib/json";
import type { BoundedCallOptions } from "./answer-limit";
import { MAX_LIST_PAGES, type McpClientConnection } from "./connect";
import { classifyMcpError } from "./errors";

export const FORWARDED_METHODS = [
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
] as const;
export type ForwardedMethod = (typeof FORWARDED_METHODS)[number];

export function isForwardedMethod(method: string | undefined): method is ForwardedMethod {
  return (FORWARDED_METHODS as readonly (string | undefined)[]).includes(method);
}

/** The key of each list method's items in its result. */
export const LIST_KEYS: Partial<Record<ForwardedMethod, string>> = {
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
  "prompts/list": "prompts",
};

const CAPABILITIES: Record<ForwardedMethod, keyof ServerCapabilities> = {
  "resources/list": "resources",
  "resources/templates/list": "resources",
  "resources/read": "resources",
  "prompts/list": "prompts",
  "prompts/get": "prompts",
  "completion/complete": "completions",
};

export const METHOD_NOT_FOUND_CODE = -32601;

export interface UpstreamRpcError {
  code: number;
  message: string;
}

export type UpstreamAnswer = { result: JsonObject } | { error: UpstreamRpcError };

export interface ForwardedRequest {
  method: ForwardedMethod;
  params: JsonObject;
}

/** One page or one answer of a request, however it is sent. */
export type SendOne = (request: ForwardedRequest) => Promise<UpstreamAnswer>;

/** The answer to `request`, a list read to its end (at most MAX_LIST_PAGES pages). */
export async function forward(send: SendOne, request: ForwardedRequest): Promise<UpstreamAnswer> {
  const key = LIST_KEYS[request.method];
  if (key === undefined) return send(request);
  const items: unknown[] = [];
  let first: JsonObject | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const params: JsonObject = cursor === undefined ? {} : { cursor };
    const answer = await send({ method: request.method, params });
    if ("error" in answer) return page === 0 ? answer : { result: { ...first, [key]: items } };
    first ??= answer.result;
    const listed = answer.result[key];
    if (Array.isArray(listed)) items.push(...listed);
    const next = answer.result["nextCursor"];
    if (typeof next !== "string" || next === "") break;
    cursor = next;
  }
  const { nextCursor: _dropped, ...rest } = first ?? {};
  return { result: { ...rest, [key]: items } };
}

/** What a server not offering the method's capability answers, without asking it. */
export function unofferedAnswer(method: ForwardedMethod): UpstreamAnswer {
  const key = LIST_KEYS[method];
  return key === undefined
    ? { error: { code: METHOD_NOT_FOUND_CODE, message: `the upstream does not serve ${method}` } }
    : { result: { [key]: [] } };
}

export function offers(capabilities: ServerCapabilities | undefined, method: ForwardedMethod): boolean {
  return capabilities === undefined || capabilities[CAPABILITIES[method]] !== undefined;
}

/** A JSON-RPC error the upstream answered, as a value; anything else is rethrown for the caller to classify. */
export function answeredError(error: unknown): UpstreamAnswer {
  if (error instanceof ProtocolError) return { error: { code: error.code, message: error.message.slice(0, 1000) } };
  throw error;
}

/** Sends one request over an SDK client already connected (a sessionful connection, or a 2026-07-28 stateless one). */
export function overClient(client: Client, timeoutMs: number, bound?: BoundedCallOptions): SendOne {
  return async ({ method, params }) => {
    if (!offers(client.getServerCapabilities(), method)) return unofferedAnswer(method);
    const options = { timeout: timeoutMs, ...bound };
    const cached = { ...options, cacheMode: "refresh" as const };
    try {
      const value: unknown = await sendTyped(client, method, params, options, cached);
      return isJsonObject(value) ? { result: value } : { error: { code: -32603, message: `${method} result is not an object` } };
    } catch (error) {
      return answeredError(error);
    }
  };
}

/** The SDK's typed method for each request: it checks the result against its schema. */
function sendTyped(
  client: Client,
  method: ForwardedMethod,
  params: JsonObject,
  options: { timeout: number },
  cached: { timeout: number; cacheMode: "refresh" },
): Promise<unknown> {
  const cursor = typeof params["cursor"] === "string" ? { cursor: params["cursor"] } : undefined;
  switch (method) {
    case "resources/list":
      return client.listResources(cursor, cached);
    case "resources/templates/list":
      return client.listResourceTemplates(cursor, cached);
    case "prompts/list":
      return client.listPrompts(cursor, cached);
    case "resources/read":
      return client.readResource({ uri: String(params["uri"]) }, cached);
    case "prompts/get":
      return client.getPrompt(promptParams(params), options);
    case "completion/complete":
      return client.complete(completeParams(params), options);
  }
}

function stringRecord(value: unknown): Record<string, string> | undefined {
  if (!isJsonObject(value)) return undefined;
  return Object.fromEntries(Object.entries(value).flatMap(([key, item]) => (typeof item === "string" ? [[key, item]] : [])));
}

function promptParams(params: JsonObject): { name: string; arguments?: Record<string, string> } {
  const args = stringRecord(params["arguments"]);
  return { name: String(params["name"]), ...(args ? { arguments: args } : {}) };
}

type CompleteParams = Parameters<Client["complete"]>[0];

function completeParams(params: JsonObject): CompleteParams {
  const ref = isJsonObject(params["ref"]) ? params["ref"] : {};
  const argument = isJsonObject(params["argument"]) ? params["argument"] : {};
  const context = isJsonObject(params["context"]) ? stringRecord(params["context"]["arguments"]) : undefined;
  const completedRef =
    ref["type"] === "ref/resource"
      ? { type: "ref/resource" as const, uri: String(ref["uri"]) }
      : { type: "ref/prompt" as const, name: String(ref["name"]) };
  return {
    ref: completedRef,
    argument: { name: String(argument["name"]), value: String(argument["value"] ?? "") },
    ...(context ? { context: { arguments: context } } : {}),
  };
}

/** A request over a sessionful connection, its answer bounded by `maxAnswerBytes` when the connection counts answers. */
export async function requestOverConnection(
  { client, answerLimits }: McpClientConnection,
  request: ForwardedRequest,
  timeoutMs: number,
  maxAnswerBytes?: number,
): Promise<UpstreamAnswer> {
  const send = (bound?: BoundedCallOptions) => forward(overClient(client, timeoutMs, bound), request);
  try {
    return answerLimits && maxAnswerBytes !== undefined ? await answerLimits.call(maxAnswerBytes, send) : await send();
  } catch (error) {
    throw classifyMcpError(error, false);
  }
}

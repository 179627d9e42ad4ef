/**
 * A local HTTP server that speaks the model providers' documented wire formats, for the model
 * adapter contract tests (test/with-upstreams/rag/model-contracts.test.ts, test/with-upstreams/agent/model-contracts.test.ts).
 * It answers deterministically from the request, records every request, and fails on demand.
 *
 * Every path starts with a run id the test chooses (`/<run>/…`), so tests never see each other's
 * requests; `GET /<run>/_requests` returns what that run sent.
 *
 * - OpenAI-compatible: POST /<run>/openai/v1/embeddings, /chat/completions (JSON or SSE when
 *   `stream`), /rerank (the Jina / Cohere / vLLM shape). Errors: `{ error: { message, type,
 *   param, code } }`; 429 with `retry-after`.
 * - Workers AI REST: POST /<run>/client/v4/accounts/<account>/ai/run/<model>, answered in the
 *   Cloudflare v4 envelope `{ result, success, errors, messages }` with each model's documented
 *   output (embeddings `{ shape, data, pooling }`, reranker `{ response: [{ id, score }] }`, text
 *   generation `{ response, tool_calls?, usage }`, or SSE `data: {"response": …}` when `stream`).
 *   Errors: `{ success: false, errors: [{ code, message }] }` with the documented codes.
 * - Vectorize v2 REST: POST /<run>/client/v4/accounts/<account>/vectorize/v2/indexes/<index>/
 *   query | upsert (NDJSON body) | delete_by_ids, over an in-memory index per run and index.
 *
 * Failing on demand, by model or index name: `rate-limited` (429, retry-after 1 s), `no-quota`
 * (429 that waiting does not cure), `broken` (500), `garbled` (200 with an undocumented shape),
 * `wrong-size` (embeddings of another dimension).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { listenOnLoopback, readBody } from "./node-http";

interface Recorded {
  method: string;
  path: string;
  authorization: string | null;
  contentType: string | null;
  body: unknown;
}

type Json = Record<string, unknown>;

const recorded = new Map<string, Recorded[]>();
/** run/account/index → id → { namespace, values } */
const indexes = new Map<string, Map<string, { namespace: string; values: number[] }>>();

/** The run id's retry hint on 429s: one second, so a client that honours it does not wait long. */
const RETRY_AFTER_SECONDS = 1;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A deterministic vector for a text: the same text always gets the same vector. */
function vectorOf(text: string, dimensions: number): number[] {
  const seed = fnv(text);
  return Array.from({ length: dimensions }, (_, i) => (((seed ^ Math.imul(i + 1, 2654435761)) >>> 0) % 2000) / 1000 - 1);
}

function overlap(query: string, text: string): number {
  const words = new Set(query.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const found = (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => words.has(w));
  return words.size === 0 ? 0 : new Set(found).size / words.size;
}

function failure(name: string): "rate-limited" | "no-quota" | "broken" | "garbled" | "wrong-size" | undefined {
  for (const kind of ["rate-limited", "no-quota", "broken", "garbled", "wrong-size"] as const) if (name.includes(kind)) return kind;
  return undefined;
}

// ---- OpenAI-compatible ------------------------------------------------------------------------

function openAiError(res: ServerResponse, kind: "rate-limited" | "no-quota" | "broken"): void {
  if (kind === "rate-limited") {
    send(
      res,
      429,
      { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } },
      { "retry-after": String(RETRY_AFTER_SECONDS) },
    );
  } else if (kind === "no-quota") {
    send(res, 429, {
      error: {
        message: "You exceeded your current quota, please check your plan and billing details.",
        type: "insufficient_quota",
        param: null,
        code: "insufficient_quota",
      },
    });
  } else {
    send(res, 500, {
      error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null },
    });
  }
}

function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  const user = [...messages].reverse().find((m: Json) => m["role"] === "user") as Json | undefined;
  const content = user?.["content"];
  return typeof content === "string" ? content : Array.isArray(content) ? content.map((p: Json) => String(p["text"] ?? "")).join(" ") : "";
}

function chatReply(body: Json): { text: string; toolCall?: { name: string; arguments: string } } {
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as Json[]) : [];
  const tools = Array.isArray(body["tools"]) ? (body["tools"] as Json[]) : [];
  const answered = messages.some((m) => m["role"] === "tool");
  const wanted = tools.find((t) => lastUserText(messages).includes(String((t["function"] as Json | undefined)?.["name"] ?? "\u0000")));
  if (!answered && wanted) return { text: "", toolCall: { name: String((wanted["function"] as Json)["name"]), arguments: "{}" } };
  return { text: answered ? "The tool answered." : `You said: ${lastUserText(messages)}` };
}

function openAiChat(res: ServerResponse, body: Json): void {
  const model = String(body["model"] ?? "");
  const reply = chatReply(body);
  const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
  const toolCalls = reply.toolCall ? [{ id: "call_1", type: "function", function: reply.toolCall }] : undefined;
  const finish = toolCalls ? "tool_calls" : "stop";
  if (body["stream"] !== true) {
    if (failure(model) === "garbled") return send(res, 200, { id: "chatcmpl-1", object: "chat.completion", answer: reply.text });
    const message = { role: "assistant", content: toolCalls ? null : reply.text, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    return send(res, 200, {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_795_000_000,
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta: Json, finishReason: string | null, extra: Json = {}) =>
    res.write(
      `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_795_000_000, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
    );
  chunk({ role: "assistant", content: "" }, null);
  if (toolCalls) chunk({ tool_calls: toolCalls.map((call, index) => ({ index, ...call })) }, null);
  else chunk({ content: reply.text }, null);
  chunk({}, finish);
  res.write(
    `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_795_000_000, model, choices: [], usage })}\n\n`,
  );
  res.end("data: [DONE]\n\n");
}

function openAi(res: ServerResponse, route: string, body: Json): void {
  const model = String(body["model"] ?? "");
  const kind = failure(model);
  if (kind === "rate-limited" || kind === "no-quota" || kind === "broken") return openAiError(res, kind);
  if (route === "embeddings") {
    const input = Array.isArray(body["input"]) ? (body["input"] as unknown[]).map(String) : [String(body["input"])];
    const dimensions = (typeof body["dimensions"] === "number" ? body["dimensions"] : 8) + (kind === "wrong-size" ? 1 : 0);
    if (kind === "garbled") return send(res, 200, { object: "list", embeddings: input.map((t) => vectorOf(t, dimensions)) });
    // Returned out of order on purpose: clients must use `index`.
    const data = input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text, dimensions) })).reverse();
    return send(res, 200, { object: "list", data, model, usage: { prompt_tokens: input.length, total_tokens: input.length } });
  }
  if (route === "rerank") {
    const documents = Array.isArray(body["documents"]) ? (body["documents"] as unknown[]).map(String) : [];
    if (kind === "garbled") return send(res, 200, { ranking: [] });
    const results = documents
      .map((doc, index) => ({ index, relevance_score: overlap(String(body["query"]), doc) }))
      .sort((a, b) => b.relevance_score - a.relevance_score);
    return send(res, 200, { id: randomUUID(), results, model, usage: { total_tokens: documents.length } });
  }
  if (route === "chat/completions") return openAiChat(res, body);
  send(res, 404, { error: { message: `Unknown path ${route}`, type: "invalid_request_error", param: null, code: "unknown_url" } });
}

// ---- Cloudflare REST (Workers AI, Vectorize) -----------------------------------------------------

function cloudflareError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  send(res, status, { success: false, errors: [{ code, message }], messages: [], result: null }, headers);
}

function cloudflareOk(res: ServerResponse, result: unknown): void {
  send(res, 200, { success: true, errors: [], messages: [], result });
}

function workersAi(res: ServerResponse, model: string, body: Json): void {
  const kind = failure(model);
  if (kind === "rate-limited")
    return cloudflareError(res, 429, 3040, "Capacity temporarily exceeded, please try again.", {
      "retry-after": String(RETRY_AFTER_SECONDS),
    });
  if (kind === "no-quota") return cloudflareError(res, 429, 3036, "You have used up your daily free allocation of 10,000 neurons.");
  if (kind === "broken") return cloudflareError(res, 500, 3043, "Internal server error");
  if (model.includes("missing")) return cloudflareError(res, 400, 5007, `No such model ${model} or task`);
  if (kind === "garbled") return cloudflareOk(res, { output: "not what the schema says" });
  if (model.includes("bge-reranker")) {
    const contexts = Array.isArray(body["contexts"]) ? (body["contexts"] as Json[]) : [];
    const scored = contexts
      .map((c, id) => ({ id, score: overlap(String(body["query"]), String(c["text"] ?? "")) }))
      .sort((a, b) => b.score - a.score);
    return cloudflareOk(res, { response: scored.slice(0, typeof body["top_k"] === "number" ? body["top_k"] : scored.length) });
  }
  if (model.includes("bge-") || model.includes("embedding")) {
    const text = Array.isArray(body["text"]) ? (body["text"] as unknown[]).map(String) : [String(body["text"])];
    const dimensions = 768 + (kind === "wrong-size" ? 1 : 0);
    return cloudflareOk(res, { shape: [text.length, dimensions], data: text.map((t) => vectorOf(t, dimensions)), pooling: "cls" });
  }
  const reply = chatReply({
    ...body,
    tools: Array.isArray(body["tools"]) ? (body["tools"] as Json[]).map((t) => ("function" in t ? t : { function: t })) : [],
  });
  const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
  if (body["stream"] === true) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const word of reply.text.split(/(?<= )/)) res.write(`data: ${JSON.stringify({ response: word })}\n\n`);
    res.write(`data: ${JSON.stringify({ response: "", usage })}\n\n`);
    res.end("data: [DONE]\n\n");
    return;
  }
  const toolCalls = reply.toolCall ? [{ name: reply.toolCall.name, arguments: {} }] : undefined;
  cloudflareOk(res, { response: toolCalls ? null : reply.text, ...(toolCalls ? { tool_calls: toolCalls } : {}), usage });
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function vectorize(res: ServerResponse, key: string, index: string, operation: string, body: unknown): void {
  const kind = failure(index);
  if (kind === "rate-limited") return cloudflareError(res, 429, 1000, "Too many requests", { "retry-after": String(RETRY_AFTER_SECONDS) });
  if (kind === "broken") return cloudflareError(res, 500, 1000, "Internal error");
  const store = indexes.get(key) ?? new Map<string, { namespace: string; values: number[] }>();
  indexes.set(key, store);
  const dimensions = store.values().next().value?.values.length;
  if (operation === "upsert") {
    const lines = typeof body === "string" ? body.split("\n").filter((line) => line.trim() !== "") : [];
    for (const line of lines) {
      const vector = JSON.parse(line) as { id: string; values: number[]; namespace?: string };
      if (dimensions !== undefined && vector.values.length !== dimensions) {
        return cloudflareError(res, 400, 1000, `vector ${vector.id} has ${vector.values.length} dimensions; the index has ${dimensions}`);
      }
      store.set(vector.id, { namespace: vector.namespace ?? "", values: vector.values });
    }
    return cloudflareOk(res, { mutationId: randomUUID() });
  }
  if (operation === "delete_by_ids") {
    for (const id of ((body as Json)["ids"] as string[] | undefined) ?? []) store.delete(id);
    return cloudflareOk(res, { mutationId: randomUUID() });
  }
  if (operation === "query") {
    const query = body as Json;
    const vector = (query["vector"] as number[] | undefined) ?? [];
    if (dimensions !== undefined && vector.length !== dimensions)
      return cloudflareError(res, 400, 1000, `query vector has ${vector.length} dimensions; the index has ${dimensions}`);
    if (kind === "garbled") return cloudflareOk(res, { hits: [] });
    const namespace = typeof query["namespace"] === "string" ? query["namespace"] : "";
    const matches = [...store]
      .filter(([, v]) => v.namespace === namespace)
      .map(([id, v]) => ({ id, score: cosine(vector, v.values), ...(query["returnValues"] === true ? { values: v.values } : {}) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, typeof query["topK"] === "number" ? query["topK"] : 5);
    return cloudflareOk(res, { count: matches.length, matches });
  }
  cloudflareError(res, 404, 1000, `Unknown operation ${operation}`);
}

// ---- routing ------------------------------------------------------------------------------------

function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
  const url = new URL(req.url ?? "/", "http://localhost");
  const [, run = "", ...rest] = url.pathname.split("/");
  const path = rest.join("/");
  if (req.method === "GET" && path === "_requests") return send(res, 200, recorded.get(run) ?? []);
  const contentType = req.headers["content-type"] ?? null;
  let body: unknown = raw;
  if (contentType?.includes("application/json")) {
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 400, {
        error: { message: "We could not parse the JSON body of your request.", type: "invalid_request_error", param: null, code: null },
      });
    }
  }
  const list = recorded.get(run) ?? [];
  list.push({ method: req.method ?? "", path, authorization: req.headers.authorization ?? null, contentType, body });
  recorded.set(run, list);

  const openAiRoute = /^openai\/v1\/(.+)$/.exec(path);
  if (openAiRoute) return openAi(res, openAiRoute[1]!, body as Json);
  const aiRoute = /^client\/v4\/accounts\/([^/]+)\/ai\/run\/(.+)$/.exec(path);
  if (aiRoute) return workersAi(res, decodeURIComponent(aiRoute[2]!), body as Json);
  const vectorRoute = /^client\/v4\/accounts\/([^/]+)\/vectorize\/v2\/indexes\/([^/]+)\/(query|upsert|delete_by_ids)$/.exec(path);
  if (vectorRoute) return vectorize(res, `${run}/${vectorRoute[1]}/${vectorRoute[2]}`, vectorRoute[2]!, vectorRoute[3]!, body);
  send(res, 404, { error: { message: `Unknown path ${path}` } });
}

/** Starts the server on `port` (loopback only); resolves once it listens. */
export function startModelProviders(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    readBody(req)
      .then((raw) => handle(req, res, raw))
      .catch((error: unknown) => send(res, 500, { error: { message: String(error) } }));
  });
  return listenOnLoopback(server, port);
}

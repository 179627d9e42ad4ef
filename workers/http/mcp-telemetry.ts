/**
 * The telemetry of every MCP POST (/mcp and /mcp/<server>; decision 0064): the first middleware of
 * the MCP chain, so the request's span holds everything beneath it (authentication, D1, Durable
 * Objects, upstream fetches) and a refused request (401, 403, 413, 429) is counted too. Once the
 * answer is known it reads what the request learned (telemetry/mcp-request.ts, told by the MCP
 * pipeline and the tool-call audit), then writes one Analytics Engine point and ends the span.
 * The answer's outcome is the one the pipeline told when it framed the answer itself (the fast
 * paths, its JSON-RPC refusals: most requests); only an answer the SDK or the HTTP layer made is
 * read again, from a copy, after it has gone.
 *
 * Nothing here can fail or hold up the request: the answer is returned before its copy is read,
 * every step after `next()` is caught and logged; without a dataset no point is written, without a
 * tracer (a runtime before custom spans) no span.
 */
import { tracing } from "cloudflare:workers";
import type { Context, MiddlewareHandler } from "hono";
import { log } from "../lib/log";
import type { Services } from "../services";
import { writeMcpDataPoint } from "../telemetry/mcp-data-point";
import { type McpCaller, summarizeMcpRequest } from "../telemetry/mcp-request-summary";
import { finishMcpSpan, isMcpTracer, type McpSpan, type McpTracer, UNTRACED } from "../telemetry/mcp-span";
import type { AppEnv } from "./context";

/** The most answer bytes read for the outcome: a larger answer is counted by its status and the audit alone. */
export const MAX_OBSERVED_ANSWER_BYTES = 256 * 1024;

function executionContextOf(c: Context<AppEnv>): Context<AppEnv>["executionCtx"] | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** The handler context's tracer (a test's recording one), else the runtime's, else none. */
function tracerOf(ctx: object | undefined): McpTracer {
  const offered = ctx && "tracing" in ctx ? ctx.tracing : undefined;
  if (isMcpTracer(offered)) return offered;
  return isMcpTracer(tracing) ? tracing : UNTRACED;
}

async function readCapped(body: ReadableStream<Uint8Array>): Promise<string | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_OBSERVED_ANSWER_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join("") + decoder.decode();
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON-RPC answer of a JSON or event-stream response (its messages, for a stream), or undefined. */
async function observedAnswer(response: Response): Promise<unknown> {
  const type = response.headers.get("content-type") ?? "";
  const json = type.startsWith("application/json");
  if (!response.body || (!json && !type.startsWith("text/event-stream"))) return undefined;
  const text = await readCapped(response.body);
  if (text === undefined) return undefined;
  if (json) return parsed(text);
  return text.split("\n").flatMap((line) => (line.startsWith("data:") ? [parsed(line.slice(5).trim())] : []));
}

export function mcpTelemetry(caller: McpCaller): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    const ctx = executionContextOf(c);
    const tracer = tracerOf(ctx);
    const started = Date.now();
    let served = false;
    const serve = async (span: McpSpan) => {
      served = true;
      await next();
      const done = observe(c, caller, started, span);
      if (ctx) ctx.waitUntil(done);
    };
    try {
      await tracer.startActiveSpan("mcp", serve);
    } catch (error) {
      // The tracer itself failed before serving: serve untraced. A failure of the request is its own.
      if (served) throw error;
      log.warn("MCP span not started", { error: String(error) });
      await next();
    }
  };
}

async function observe(c: Context<AppEnv>, caller: McpCaller, started: number, span: McpSpan): Promise<void> {
  try {
    const durationMs = Date.now() - started;
    const response = c.res;
    // Set by `authenticated`; absent when the request was refused before it.
    const services: Services | undefined = c.var.services;
    const framed = services?.mcpRequest.framedAnswer;
    // Copied now, before the client reads the answer; read only after it has gone.
    const copy = framed === undefined ? response.clone() : undefined;
    const summary = summarizeMcpRequest({
      path: new URL(c.req.url).pathname,
      caller,
      protocolHeader: c.req.header("mcp-protocol-version") ?? null,
      status: response.status,
      answer: copy ? await observedAnswer(copy) : framed,
      durationMs,
      learned: services?.mcpRequest,
    });
    writeMcpDataPoint(c.env.MCP_ANALYTICS, summary);
    finishMcpSpan(span, summary);
  } catch (error) {
    log.warn("MCP telemetry not recorded", { error: String(error) });
    span.end();
  }
}

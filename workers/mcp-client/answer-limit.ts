/**
 * A bound on the bytes of a server's answer to a call, enforced while the body streams in: nothing
 * past the bound is read, let alone kept. The SDK's transports read a JSON answer whole
 * (`response.json()`) and an SSE event whole before they parse it, so an answer without a bound
 * fills the isolate's memory before anything could look at it; the transport's fetch is the one
 * place every transport shares, so the bytes are counted there.
 *
 * What is counted: a JSON (or any other non-SSE) body as a whole, read here up to the bound before
 * the SDK gets it; an SSE body per event (the bytes since the last blank line) as it streams
 * through, since one stream carries many messages. Which responses: those of
 * the requests a bounded call made (the call's marker header says so, and is removed before the
 * request leaves), and, while a bounded call is pending, every GET stream — the legacy SSE
 * transport answers calls on its one stream, and a streamable HTTP server may answer on its
 * standalone stream too. Over the bound the body is cut (the server's stream is cancelled) and the
 * calls it belonged to fail at once with AnswerTooLargeError instead of waiting for their timeout.
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import { McpClientError } from "./errors";

/** Marks the requests of one bounded call; never sent (AnswerLimits#fetch removes it). */
const CALL_HEADER = "mcp-edge-bounded-call";
const LF = 0x0a;
const CR = 0x0d;

/**
 * An answer larger than the call's bound: the server answered (its health is not in question) and
 * nothing was retried. A `protocol` failure for every client of mcp-client; the gateway types it.
 */
export class AnswerTooLargeError extends McpClientError {
  constructor(readonly limitBytes: number) {
    super("protocol", `the server's answer is larger than ${limitBytes} bytes`, false, false);
  }
}

/** What a bounded call passes to the SDK's request: its cancellation and its marker. */
export interface BoundedCallOptions {
  signal: AbortSignal;
  headers: Record<string, string>;
}

interface PendingCall {
  maxBytes: number;
  abort: AbortController;
}

/** What an answer past its bound fails: the call it belongs to, or every pending call of a shared stream. */
type Exceeded = (error: AnswerTooLargeError) => void;

/**
 * The size of the SSE event being received: bytes since the last blank line. Lines end with LF,
 * CR or CRLF (the SSE grammar); a CRLF split across two chunks is one line end.
 */
export class EventSize {
  private size = 0;
  private lineEmpty = true;
  private afterCr = false;

  add(chunk: Uint8Array): number {
    let peak = this.size;
    let at = 0;
    let nextLf = -2;
    let nextCr = -2;
    while (at < chunk.length) {
      if (this.afterCr && chunk[at] === LF) {
        this.afterCr = false;
        at++;
        continue;
      }
      this.afterCr = false;
      if (nextLf !== -1 && nextLf < at) nextLf = chunk.indexOf(LF, at);
      if (nextCr !== -1 && nextCr < at) nextCr = chunk.indexOf(CR, at);
      const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      const stop = end === -1 ? chunk.length : end;
      if (stop > at) {
        this.size += stop - at;
        this.lineEmpty = false;
      }
      peak = Math.max(peak, this.size);
      if (end === -1) break;
      if (this.lineEmpty) {
        this.size = 0;
      } else {
        this.size++;
        this.lineEmpty = true;
      }
      this.afterCr = chunk[end] === CR;
      at = end + 1;
    }
    return Math.max(peak, this.size);
  }
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
}

/**
 * The body's length as declared, when it binds: HTTP framing ends the body there. Not when it is
 * encoded: the runtime decodes gzip and brotli, and the declared length is the encoded one.
 */
function declaredLength(response: Response): number | undefined {
  const declared = response.headers.get("content-length");
  const encoding = (response.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  return declared !== null && /^\d+$/.test(declared) && encoding === "identity" ? Number(declared) : undefined;
}

async function refuse(body: ReadableStream<Uint8Array>, maxBytes: number, exceeded: Exceeded): Promise<never> {
  const error = new AnswerTooLargeError(maxBytes);
  exceeded(error);
  // Nothing (more) is read: the server's body is cancelled.
  await body.cancel(error).catch(() => undefined);
  throw error;
}

/**
 * A body that is one message (JSON), read here up to the bound: the SDK reads it whole before it
 * parses it anyway, and handing it over in memory costs less than a counting stream in between.
 */
async function readWithin(response: Response, body: ReadableStream<Uint8Array>, maxBytes: number, exceeded: Exceeded): Promise<Response> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      reader.releaseLock();
      return refuse(body, maxBytes, exceeded);
    }
    chunks.push(value);
  }
  return new Response(joined(chunks, total), { status: response.status, statusText: response.statusText, headers: response.headers });
}

function joined(chunks: readonly Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const [only] = chunks;
  // One chunk (the usual answer) is handed on as it is, without a copy.
  if (chunks.length === 1 && only !== undefined && only.buffer instanceof ArrayBuffer) {
    return new Uint8Array(only.buffer, only.byteOffset, only.byteLength);
  }
  const whole = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/** An SSE body, counted per event as it streams through to the SDK's reader. */
function countEvents(response: Response, body: ReadableStream<Uint8Array>, maxBytes: () => number, exceeded: Exceeded): Response {
  const size = new EventSize();
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const limit = maxBytes();
        if (size.add(chunk) <= limit) return controller.enqueue(chunk);
        const error = new AnswerTooLargeError(limit);
        exceeded(error);
        // Errors the reader and cancels the server's body: nothing more is read.
        controller.error(error);
      },
    }),
  );
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
}

async function bounded(response: Response, maxBytes: () => number, exceeded: Exceeded): Promise<Response> {
  const body = response.body;
  if (body === null) return response;
  if (isEventStream(response)) return countEvents(response, body, maxBytes, exceeded);
  const limit = maxBytes();
  if (limit === Number.POSITIVE_INFINITY) return response;
  const declared = declaredLength(response);
  if (declared === undefined) return readWithin(response, body, limit, exceeded);
  return declared <= limit ? response : refuse(body, limit, exceeded);
}

function takeMarker(init: RequestInit | undefined): { key: string | undefined; init: RequestInit | undefined } {
  if (init?.headers === undefined) return { key: undefined, init };
  const headers = new Headers(init.headers);
  const key = headers.get(CALL_HEADER);
  if (key === null) return { key: undefined, init };
  headers.delete(CALL_HEADER);
  return { key, init: { ...init, headers } };
}

/** The bounded calls of one connection (or of one stateless call) and the fetch that enforces their bounds. */
export class AnswerLimits {
  private readonly pending = new Map<string, PendingCall>();

  /** `inner` with every answer to a bounded call counted as it streams in. */
  wrap(inner: FetchLike): FetchLike {
    return async (url, init) => {
      const marked = takeMarker(init);
      const response = await inner(url, marked.init);
      if (marked.key !== undefined) {
        const call = this.pending.get(marked.key);
        return call
          ? bounded(
              response,
              () => call.maxBytes,
              (error) => call.abort.abort(error),
            )
          : response;
      }
      const method = (marked.init?.method ?? "GET").toUpperCase();
      return method === "GET"
        ? bounded(
            response,
            () => this.smallestPending(),
            (error) => this.failPending(error),
          )
        : response;
    };
  }

  /**
   * Runs one call whose answer may have at most `maxBytes` bytes; `run` hands `options` to the
   * SDK's request. Rejects with AnswerTooLargeError as soon as the answer passes the bound.
   */
  async call<T>(maxBytes: number, run: (options: BoundedCallOptions) => Promise<T>): Promise<T> {
    const key = crypto.randomUUID();
    const abort = new AbortController();
    this.pending.set(key, { maxBytes, abort });
    try {
      return await run({ signal: abort.signal, headers: { [CALL_HEADER]: key } });
    } catch (error) {
      // The SDK turns an abort reason that is not its own error into a timeout: the reason is the truth.
      const reason: unknown = abort.signal.reason;
      throw abort.signal.aborted && reason instanceof AnswerTooLargeError ? reason : error;
    } finally {
      this.pending.delete(key);
    }
  }

  private smallestPending(): number {
    let smallest = Number.POSITIVE_INFINITY;
    for (const call of this.pending.values()) smallest = Math.min(smallest, call.maxBytes);
    return smallest;
  }

  private failPending(error: AnswerTooLargeError): void {
    for (const call of this.pending.values()) call.abort.abort(error);
  }
}

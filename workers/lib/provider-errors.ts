/**
 * A model provider's failure as the one error type: rate limits and lack of capacity are `busy`
 * with a retry hint (HTTP 429 + Retry-After on REST), exhausted quota is `unavailable` (waiting a
 * moment does not help), a provider timeout is `timeout`, anything else `upstream_error`. The
 * provider's own message never reaches the client (it can name accounts or keys); its status and
 * error code do. Used by the RAG model adapters and the agent's model loop.
 */
import { AppError } from "./errors";

/** When a 429 carries no hint. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

export interface ProviderFailure {
  status?: number | undefined;
  /** The provider's error code or type, e.g. `rate_limit_exceeded`, `insufficient_quota`, `3040`. */
  code?: string | undefined;
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

const QUOTA_CODES = new Set(["insufficient_quota", "3036"]);
/** Workers AI internal codes (developers.cloudflare.com/workers-ai/platform/errors/) and their HTTP status. */
const WORKERS_AI_STATUS: Record<string, number> = {
  "3003": 400,
  "3006": 413,
  "3007": 408,
  "3008": 408,
  "3023": 403,
  "3036": 429,
  "3040": 429,
  "3041": 403,
  "3042": 404,
  "5004": 400,
  "5007": 400,
  "5016": 403,
  "5018": 403,
};

type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined> | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof headers.get === "function") return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : record[key];
}

/** The wait a response asks for: `retry-after-ms`, or `Retry-After` in seconds or as an HTTP date. */
export function retryAfterMs(headers: HeaderSource, now = Date.now()): number | undefined {
  const ms = Number(header(headers, "retry-after-ms"));
  if (Number.isFinite(ms) && ms >= 0 && header(headers, "retry-after-ms")?.trim()) return Math.round(ms);
  const value = header(headers, "retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A safe token of the provider's error code (never free text). */
function safeCode(code: string | undefined): string | undefined {
  return code !== undefined && /^[\w.-]{1,64}$/.test(code) ? code : undefined;
}

export function providerError(what: string, failure: ProviderFailure): AppError {
  const code = safeCode(failure.code);
  const options = { cause: failure.cause };
  if (code !== undefined && QUOTA_CODES.has(code)) {
    return new AppError("unavailable", `${what}: the provider's quota is used up (${code})`, {
      ...options,
      details: { provider_code: code },
    });
  }
  if (failure.status === 429 || (failure.status === 503 && failure.retryAfterMs !== undefined)) {
    const wait = failure.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
    return new AppError("busy", `${what} is busy (HTTP ${failure.status}${code ? `, ${code}` : ""}); retry after ${wait} ms`, {
      ...options,
      details: { retry_after_ms: wait, ...(code ? { provider_code: code } : {}) },
    });
  }
  if (failure.status === 408 || failure.status === 504)
    return new AppError("timeout", `${what} timed out (HTTP ${failure.status})`, options);
  const status = failure.status === undefined ? "failed" : `answered HTTP ${failure.status}`;
  return new AppError("upstream_error", `${what} ${status}${code ? ` (${code})` : ""}`, {
    ...options,
    ...(code ? { details: { provider_code: code } } : {}),
  });
}

/**
 * An error thrown by the Workers AI binding: `InferenceUpstreamError` with the message
 * `<internal code>: <description>` (cloudflare/workerd src/cloudflare/internal/ai-api.ts).
 */
export function workersAiError(what: string, error: unknown): AppError {
  const message = error instanceof Error ? error.message : String(error);
  const code = /^(\d{4}):/.exec(message)?.[1];
  return providerError(what, { status: code ? WORKERS_AI_STATUS[code] : undefined, code, cause: error });
}

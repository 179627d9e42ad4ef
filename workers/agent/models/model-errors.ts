/**
 * How a failed language-model call ends a chat turn: the AI SDK's errors (an `APICallError`, or a
 * `RetryError` around one after the SDK's own retries) mapped by the provider's HTTP status, error
 * code and retry hint — a rate limit is `busy` with `retry_after_ms` (HTTP 429 + Retry-After on
 * /api/chat), an exhausted quota `unavailable`, anything else `upstream_error`.
 */
import { APICallError, RetryError } from "ai";
import { AppError } from "../../lib/errors";
import { providerError, retryAfterMs } from "../../lib/provider-errors";

const WHAT = "The language model";

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The provider's error code: OpenAI-style `{ error: { code | type } }`, or Workers AI's internal code. */
function providerCode(error: APICallError): string | undefined {
  const data = error.data;
  if (typeof data === "object" && data !== null) {
    if ("workersAIErrorCode" in data && data.workersAIErrorCode !== undefined) return String(data.workersAIErrorCode);
    if ("error" in data && typeof data.error === "object" && data.error !== null) {
      const inner = data.error;
      const code = ("code" in inner ? inner.code : undefined) ?? ("type" in inner ? inner.type : undefined);
      if (typeof code === "string" || typeof code === "number") return String(code);
    }
  }
  const body = error.responseBody ?? "";
  return /"code"\s*:\s*"?([\w.-]{1,64})"?/.exec(body)?.[1];
}

export function modelFailure(error: unknown): AppError {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(last) && last.statusCode !== undefined) {
    return providerError(WHAT, {
      status: last.statusCode,
      code: providerCode(last),
      retryAfterMs: retryAfterMs(last.responseHeaders),
      cause: error,
    });
  }
  return new AppError("upstream_error", `${WHAT} failed: ${errorText(last)}`, { cause: error });
}

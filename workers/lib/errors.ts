/**
 * The one error type of mcp-edge. Domain code throws it; the MCP tool wrapper turns it into an
 * `isError` result and the REST error handler into `{ error: { code, message } }`.
 * `message` is safe to show to a client; `cause` is for logs only and never leaves the Worker.
 */
export const ERROR_CODES = [
  "invalid_input",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "busy",
  "rate_limited",
  "timeout",
  "unavailable",
  "upstream_error",
  "internal",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** For codes that arrive as plain strings (for example a Durable Object's answer over RPC). */
export function isErrorCode(value: string): value is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(value);
}

const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  busy: 429,
  rate_limited: 429,
  timeout: 504,
  unavailable: 503,
  upstream_error: 502,
  internal: 500,
};

export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  /** Extra, client-safe detail (for example `retry_after_ms` or the offending field). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details;
  }

  get status(): number {
    return HTTP_STATUS[this.code];
  }

  static notFound(what: string, id: string | number): AppError {
    return new AppError("not_found", `${what} ${id} not found`);
  }

  static invalid(message: string, field?: string): AppError {
    return new AppError("invalid_input", message, field ? { details: { field } } : undefined);
  }
}

/**
 * The retry hint of a refusal that may succeed later (`busy`, `rate_limited`), from
 * `details.retry_after_ms`; both faces also carry it beside the code, where clients look first.
 */
export function retryAfterMs(error: AppError): number | undefined {
  const value = error.details?.["retry_after_ms"];
  return typeof value === "number" ? value : undefined;
}

/** Anything thrown becomes an AppError; unknown errors become a generic `internal` one. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError("internal", "Internal error; it has been logged", { cause: error });
}

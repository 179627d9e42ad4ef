/** The REST face of AppError: `{ error: { code, message } }` with the matching status. Never a stack trace. */
import type { Context, Env as HonoEnv, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError, retryAfterMs, toAppError } from "../lib/errors";
import { log } from "../lib/log";

export function errorBody(error: AppError) {
  const retryAfter = retryAfterMs(error);
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(retryAfter === undefined ? {} : { retry_after_ms: retryAfter }),
      ...(error.details ? { details: error.details } : {}),
    },
  };
}

export function errorResponse(c: Context, thrown: unknown): Response {
  const error = toAppError(thrown);
  if (error.code === "internal") {
    log.error("unhandled error", {
      path: new URL(c.req.url).pathname,
      cause: String(error.cause ?? error),
      stack: error.cause instanceof Error ? error.cause.stack : undefined,
    });
  }
  const headers: Record<string, string> = {};
  if (error.code === "unauthorized") headers["WWW-Authenticate"] = 'Bearer realm="OAuth"';
  const retryAfter = retryAfterMs(error);
  if (retryAfter !== undefined) headers["Retry-After"] = String(Math.max(1, Math.ceil(retryAfter / 1000)));
  return c.json(errorBody(error), error.status as ContentfulStatusCode, headers);
}

/** Every app and lazily built sub-app answers an unknown route and a thrown error the same way. */
export function withErrorAnswers<E extends HonoEnv>(app: Hono<E>): Hono<E> {
  app.notFound((c) => errorResponse(c, new AppError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`)));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}

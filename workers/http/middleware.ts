/**
 * Middleware every request may pass through before anything is loaded: CORS preflight and body
 * limits. They import nothing heavy, so the entry module can use them (workers/http/lazy.ts);
 * authentication and the Origin check are imported on first use (authenticated.ts, origin-check.ts).
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../lib/errors";
import type { AppEnv } from "./context";

export const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, PATCH, PUT, DELETE, OPTIONS",
  "Access-Control-Allow-Headers":
    "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  "Access-Control-Expose-Headers": "Mcp-Session-Id, WWW-Authenticate, Retry-After",
  "Access-Control-Max-Age": "86400",
};

const CORS_HEADER_ENTRIES = Object.entries(CORS_HEADERS);

/** Bearer tokens, not cookies, carry identity, so a wildcard CORS origin exposes nothing. */
export const cors: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
  await next();
  const headers = c.res.headers;
  for (const [name, value] of CORS_HEADER_ENTRIES) headers.set(name, value);
};

/** Bodies over `maxSize` bytes are answered 413 (as an AppError) before anything reads them. */
export const limitBody = (maxSize: number): MiddlewareHandler<AppEnv> =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError("payload_too_large", `Request body exceeds the limit of ${maxSize} bytes`);
    },
  });

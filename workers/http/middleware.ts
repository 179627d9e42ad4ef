/** Middleware for /mcp/* and /api/*: CORS preflight, Origin checks (MCP), body limits, services and authentication. */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { type AuthUser, authenticate } from "../auth/auth.service";
import { AppError } from "../lib/errors";
import { rejectForeignOrigin } from "../mcp/origin";
import { createServices, type Services } from "../services";
import type { AppEnv } from "./context";
import { errorResponse } from "./errors";

export const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, PATCH, PUT, DELETE, OPTIONS",
  "Access-Control-Allow-Headers":
    "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  "Access-Control-Expose-Headers": "Mcp-Session-Id, WWW-Authenticate, Retry-After",
  "Access-Control-Max-Age": "86400",
};

/** Bearer tokens, not cookies, carry identity, so a wildcard CORS origin exposes nothing. */
export const cors: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
  await next();
  for (const [name, value] of Object.entries(CORS_HEADERS)) c.res.headers.set(name, value);
};

export const originCheck: MiddlewareHandler<AppEnv> = async (c, next) => {
  const rejection = rejectForeignOrigin(c.req.raw, c.env.ALLOWED_ORIGINS);
  if (rejection) return rejection;
  await next();
};

/** Bodies over `maxSize` bytes are answered 413 (as an AppError) before anything reads them. */
export const limitBody = (maxSize: number): MiddlewareHandler<AppEnv> =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError("payload_too_large", `Request body exceeds the limit of ${maxSize} bytes`);
    },
  });

/** The request's services, their background work kept alive with the request. */
export function requestServices(c: Context<AppEnv>): Services {
  return createServices(c.env, (promise) => c.executionCtx.waitUntil(promise));
}

/** The one place identity is established (OAuth will plug in here): the bearer token's user, or an AppError. */
export function identify(c: Context<AppEnv>, services: Services): Promise<AuthUser> {
  return authenticate(services.db, c.req.header("authorization"), Number(c.env.TOKEN_CACHE_SECONDS || "30"));
}

export const authenticated: MiddlewareHandler<AppEnv> = async (c, next) => {
  const services = requestServices(c);
  try {
    c.set("user", await identify(c, services));
  } catch (error) {
    return errorResponse(c, error);
  }
  c.set("services", services);
  await next();
};

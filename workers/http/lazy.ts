/**
 * Building the Worker on first use. A new isolate evaluates only what its entry module imports
 * statically — every module it reaches, with every zod schema and library those build at load —
 * before it can serve anything, and Workers start many isolates. So the entry imports routing
 * only; each area (its libraries, schemas, tools, services) is an `import()` made by the first
 * request that needs it, then kept for the isolate's life like any module. The startup-graph test
 * (test/node/startup-graph.test.ts) holds the line: which packages the entry may reach statically.
 */
import type { Context, Env as HonoEnv, Hono, MiddlewareHandler, Next } from "hono";
import { onFirstUse } from "../lib/first-use";

type RouteHandler<E extends HonoEnv> = (c: Context<E>) => Response | Promise<Response>;

/** A route handler imported by the first request it serves. */
export function lazyHandler<E extends HonoEnv>(load: () => Promise<RouteHandler<E>>): RouteHandler<E> {
  const handler = onFirstUse(load);
  return async (c) => (await handler())(c);
}

/** A middleware imported by the first request that passes through it. */
export function lazyMiddleware<E extends HonoEnv>(load: () => Promise<MiddlewareHandler<E>>): MiddlewareHandler<E> {
  const middleware = onFirstUse(load);
  return async (c: Context<E>, next: Next) => (await middleware())(c, next);
}

/** The Worker's execution context, when the caller gave one (tests may call `app.fetch` without). */
function executionContextOf<E extends HonoEnv>(c: Context<E>): Context<E>["executionCtx"] | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/**
 * A sub-app with its own routes and middleware (its own 404 and error answers too), built by the
 * first request for it; every request is handed over as it came. For areas off the MCP hot path:
 * the hand-over routes the request a second time.
 */
export function lazyApp<E extends HonoEnv>(load: () => Promise<Hono<E>>): RouteHandler<E> {
  const app = onFirstUse(load);
  return async (c) => (await app()).fetch(c.req.raw, c.env, executionContextOf(c));
}

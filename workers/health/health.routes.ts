/**
 * GET /health: public, no token needed. A valid bearer token adds the caller's own sources'
 * health; an invalid one is refused (401) rather than silently ignored, so a client notices.
 */
import type { Context } from "hono";
import { authenticate } from "../auth/auth.service";
import { type AppEnv, createServices } from "../http/context";
import { errorResponse } from "../http/errors";
import { checkHealth } from "./health.service";

export async function healthRoute(c: Context<AppEnv>): Promise<Response> {
  const services = createServices(c.env, (promise) => c.executionCtx.waitUntil(promise));
  const authorization = c.req.header("authorization");
  let userId: number | undefined;
  if (authorization) {
    try {
      userId = (await authenticate(services.db, authorization, Number(c.env.TOKEN_CACHE_SECONDS || "30"))).id;
    } catch (error) {
      return errorResponse(c, error);
    }
  }
  const report = await checkHealth(services.db, { service: services.sources, userId });
  return c.json(report, report.status === "unavailable" ? 503 : 200);
}

/**
 * GET /health: public, no token needed. A valid bearer token adds the caller's own sources'
 * health; an invalid one is refused (401) rather than silently ignored, so a client notices.
 */
import type { Context } from "hono";
import type { AppEnv } from "../http/context";
import { identify, requestServices, unauthorizedResponse } from "../http/middleware";
import { checkHealth } from "./health.service";

export async function healthRoute(c: Context<AppEnv>): Promise<Response> {
  const services = requestServices(c);
  let userId: number | undefined;
  if (c.req.header("authorization")) {
    try {
      userId = (await identify(c, services)).user.id;
    } catch (error) {
      return unauthorizedResponse(c, error);
    }
  }
  const report = await checkHealth(services.db, { service: services.sources, userId });
  return c.json(report, report.status === "unavailable" ? 503 : 200);
}

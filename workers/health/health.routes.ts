/**
 * GET /health: public, no token needed, status words only. A valid bearer token adds the caller's
 * own figures; an invalid one is refused (401) rather than silently ignored, so a client notices.
 */
import type { Context } from "hono";
import type { AppEnv } from "../http/context";
import { identify, requestServices, unauthorizedResponse } from "../http/authenticated";
import { checkHealth, type HealthReport } from "./health.service";

export async function healthRoute(c: Context<AppEnv>): Promise<Response> {
  let report: HealthReport;
  if (c.req.header("authorization")) {
    let userId: number;
    try {
      userId = (await identify(c)).user.id;
    } catch (error) {
      return unauthorizedResponse(c, error);
    }
    const services = requestServices(c, undefined, userId);
    report = await checkHealth(services.db, { userId, sources: services.sourceHealth });
  } else {
    report = await checkHealth(requestServices(c).db);
  }
  return c.json(report, report.status === "unavailable" ? 503 : 200);
}

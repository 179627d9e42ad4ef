/**
 * Authentication for the MCP requests the chat agent's Worker makes on a user's behalf. They never
 * come from the internet: the AgentMcp entrypoint (workers/agent-mcp.ts) is reachable only through
 * a service binding, and it hands each request over here with the principal the main Worker itself
 * authenticated for /api/chat — no bearer token travels. This middleware takes the place of
 * `authenticated` for those requests and keeps its rules: the audience rule for the route's
 * resource (a token issued for /api alone reaches no MCP endpoint), the same access (scopes per
 * tool, the step-up 403) and the same services; the tool-call rate limit applies as usual.
 */
import type { MiddlewareHandler } from "hono";
import { assertAudience } from "../auth/auth.service";
import type { Principal } from "../auth/principal";
import { resourceUrl } from "../auth/resources";
import { AppError } from "../lib/errors";
import { accessFor, requestResource, requestServices, unauthorizedResponse } from "./authenticated";
import type { AppEnv } from "./context";

const handedOver = new WeakMap<Request, Principal>();

/** Marks `request` as made for `principal`; only the entrypoint calls this, on requests it built. */
export function handOver(request: Request, principal: Principal): Request {
  handedOver.set(request, principal);
  return request;
}

export const handedOverPrincipal: MiddlewareHandler<AppEnv> = async (c, next) => {
  const principal = handedOver.get(c.req.raw);
  if (!principal) return unauthorizedResponse(c, new AppError("unauthorized", "This request carries no principal handed over by the agent"));
  const { issuer, path } = requestResource(c);
  try {
    if (principal.via === "oauth" && issuer === undefined) throw new AppError("unauthorized", "OAuth is unavailable on this origin");
    if (issuer !== undefined) assertAudience(principal, resourceUrl(issuer, path));
  } catch (error) {
    return unauthorizedResponse(c, error);
  }
  c.set("user", principal.user);
  c.set("access", accessFor(c, principal));
  c.set("services", requestServices(c, undefined, principal.user.id));
  await next();
};

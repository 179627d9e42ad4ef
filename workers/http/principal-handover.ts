/**
 * Authentication for the MCP requests the chat agent's Worker makes on a user's behalf. They never
 * come from the internet: the AgentMcp entrypoint (workers/agent-mcp.ts) is reachable only through
 * a service binding, and it serves each request with the principal the main Worker itself
 * authenticated for /api/chat — no bearer token travels. The principal rides beside the Worker's
 * bindings in the `env` the app is called with (`handOver`), so it is an argument of that one
 * call, never a table kept between requests. This middleware takes the place of `authenticated`
 * for those requests and keeps its rules: the audience rule for the route's resource (a token
 * issued for /api alone reaches no MCP endpoint), the same access (scopes per tool, the step-up
 * 403) and the same services; the tool-call rate limit applies as usual.
 */
import type { MiddlewareHandler } from "hono";
import { assertAudience } from "../auth/auth.service";
import type { Principal } from "../auth/principal";
import { resourceUrl } from "../auth/resources";
import { AppError } from "../lib/errors";
import { accessFor, requestResource, requestServices, unauthorizedResponse } from "./authenticated";
import type { AppEnv } from "./context";

const HANDED_OVER = Symbol("mcp-edge/handed-over-principal");

/** A principal only this module wraps: nothing else in `env` can pass for one. */
class HandedOver {
  constructor(readonly principal: Principal) {}
}

/** The bindings to serve a request of `principal` with: the Worker's own, and the principal. Only the entrypoint calls this. */
export function handOver(env: Env, principal: Principal): Env {
  const withPrincipal = { ...env, [HANDED_OVER]: new HandedOver(principal) };
  return withPrincipal;
}

function handedOverPrincipalOf(env: Env): Principal | undefined {
  const value: unknown = HANDED_OVER in env ? env[HANDED_OVER] : undefined;
  return value instanceof HandedOver ? value.principal : undefined;
}

export const handedOverPrincipal: MiddlewareHandler<AppEnv> = async (c, next) => {
  const principal = handedOverPrincipalOf(c.env);
  if (!principal)
    return unauthorizedResponse(c, new AppError("unauthorized", "This request carries no principal handed over by the agent"));
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

/**
 * Authentication for /api/* and /mcp*: the one place identity is established (the bearer token's
 * principal, audience-checked), the request's services built, and the 401 / 403 answers with
 * their challenges, and the per-user REST budget. Imported by the first request that needs it (workers/app.ts).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Access } from "../auth/access";
import { authenticationChallenge, insufficientScopeChallenge } from "../auth/challenges";
import { defaultScopes } from "../auth/default-scopes-settings";
import { issuerOf } from "../auth/issuer";
import type { Principal } from "../auth/principal";
import { type ResourcePath, resourcePathOf, resourceUrl } from "../auth/resources";
import type { Scope } from "../auth/scopes";
import { AppError } from "../lib/errors";
import { createServices, type Services } from "../services";
import type { AppEnv } from "./context";
import { errorResponse } from "./errors";

/** What a request's services and resource are made from (any app's context: the sign-in routes' too). */
type RequestFacts = Pick<Context<AppEnv>, "req" | "env" | "executionCtx">;

/**
 * The request's services, their background work kept alive with the request; `resource` as requestResource
 * finds it; `userId` the authenticated user they work for (their D1 reads see that user's own writes).
 */
export function requestServices(c: RequestFacts, resource = requestResource(c), userId?: number): Services {
  return createServices(c.env, (promise) => c.executionCtx.waitUntil(promise), resource.issuer, resource.origin, undefined, userId);
}

/** The issuer and protected resource a request is for (the route's most specific resource), and the origin it arrived on. */
export function requestResource(c: RequestFacts): { issuer: string | undefined; path: ResourcePath; origin: string } {
  const url = new URL(c.req.url);
  return { issuer: issuerOf(url, c.env), path: resourcePathOf(url.pathname), origin: url.origin };
}

/**
 * The one place identity is established: the bearer token's principal (audience-checked), or an AppError.
 * The token is looked up on any D1 replica first and a miss again on the primary (decision 0065).
 */
export function identify(c: Context<AppEnv>, resource = requestResource(c)): Promise<Principal> {
  const { issuer, path } = resource;
  return requestServices(c, resource).authentication.authenticate(
    {
      cacheSeconds: Number(c.env.TOKEN_CACHE_SECONDS || "30"),
      issuer,
      resource: issuer === undefined ? undefined : resourceUrl(issuer, path),
    },
    c.req.header("authorization"),
  );
}

/**
 * 401 with the route's challenge: where its metadata is and the scopes a first sign-in asks for.
 * An unusable OAUTH_DEFAULT_SCOPES answers its own 503 naming the setting instead.
 */
export function unauthorizedResponse(c: Context<AppEnv>, error: unknown): Response {
  const response = errorResponse(c, error);
  if (response.status !== 401) return response;
  const { issuer, path } = requestResource(c);
  let asked: readonly Scope[];
  try {
    asked = defaultScopes(c.env, path);
  } catch (settingError) {
    return errorResponse(c, settingError);
  }
  response.headers.set("WWW-Authenticate", authenticationChallenge(issuer, path, c.req.header("authorization") !== undefined, asked));
  return response;
}

/** The request's access for `principal`: its 403 names the request's resource in the step-up challenge. */
export function accessFor(c: Context<AppEnv>, principal: Principal): Access {
  return {
    principal,
    refuse: (needed: readonly Scope[]) => {
      const { issuer, path } = requestResource(c);
      const error = new AppError(
        "forbidden",
        `This token does not grant ${needed.join(" ")}: sign in again asking for ${needed.length > 1 ? "these scopes" : "this scope"}`,
        {
          details: { required_scopes: [...needed] },
        },
      );
      const response = errorResponse(c, error);
      response.headers.set("WWW-Authenticate", insufficientScopeChallenge(issuer, path, needed));
      response.headers.set("Cache-Control", "no-store");
      return response;
    },
  };
}

export const authenticated: MiddlewareHandler<AppEnv> = async (c, next) => {
  // The request's URL parsed once for both (every MCP request passes here).
  const resource = requestResource(c);
  let principal: Principal;
  try {
    principal = await identify(c, resource);
  } catch (error) {
    return unauthorizedResponse(c, error);
  }
  c.set("user", principal.user);
  c.set("access", accessFor(c, principal));
  c.set("services", requestServices(c, resource, principal.user.id));
  await next();
};

/**
 * The per-user REST budget (API_REQUEST_LIMITER): every /api/* request spends one unit, after
 * authentication (the key is the user) and before the route reads or validates anything, so a
 * refused request runs nothing. Refused: 429, `Retry-After` and `{ error: { code: "rate_limited",
 * message, retry_after_ms, details } }`. Tool calls have their own budget (mcp/tool-call-limit.ts).
 */
export const apiRateLimited: MiddlewareHandler<AppEnv> = async (c, next) => {
  const refusal = await c.var.services.rateLimits.spend("api_requests", c.var.user.id);
  if (refusal) return errorResponse(c, refusal);
  await next();
};

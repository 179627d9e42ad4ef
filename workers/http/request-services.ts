/**
 * The request's services for routes that authenticate no bearer token — sign-in and the upstream
 * connect pages, which know their user by a browser session if at all. Set once, before the route
 * runs, as `authenticated` sets them for /api and /mcp. Imported by the first such request (workers/app.ts).
 */
import type { MiddlewareHandler } from "hono";
import type { SignInEnv } from "../auth/authorize/authorize.routes";
import { requestServices } from "./authenticated";

export const withRequestServices: MiddlewareHandler<SignInEnv> = async (c, next) => {
  c.set("services", requestServices(c));
  await next();
};

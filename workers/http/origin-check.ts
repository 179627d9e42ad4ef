/** The DNS-rebinding check of every MCP endpoint as middleware (mcp/origin.ts; decision 0005). */
import type { MiddlewareHandler } from "hono";
import { rejectForeignOrigin } from "../mcp/origin";
import type { AppEnv } from "./context";

export const originCheck: MiddlewareHandler<AppEnv> = async (c, next) => {
  const rejection = rejectForeignOrigin(c.req.raw, c.env.ALLOWED_ORIGINS);
  if (rejection) return rejection;
  await next();
};

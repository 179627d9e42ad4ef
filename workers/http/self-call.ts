/**
 * The one step of the SelfCalls app (workers/self-calls.ts) that the app the internet reaches does
 * not have: the gateway's mark on a SELF request — "this tool call is already counted for user N"
 * (mcp-client/self-routed-fetch.ts) — becomes the request's typed `toolCallCountedFor`, which the
 * tool-call limit compares with the user the request authenticated as.
 *
 * Why the mark can be believed here: SelfCalls is a named entry point, which has no URL and is
 * reachable only through this Worker's own SELF binding, and SELF requests are made only by
 * self-routed-fetch.ts, which sets the mark for a call the gateway counted and removes it from any
 * other request. The default export never mounts this step, so the same header from outside means
 * nothing.
 */
import type { MiddlewareHandler } from "hono";
import { TOOL_CALL_COUNTED_FOR_HEADER } from "../mcp-client/self-routed-fetch";
import type { AppEnv } from "./context";

/** A user id as self-routed-fetch.ts writes it; anything else is no mark (the call then spends as usual). */
const USER_ID = /^[1-9][0-9]{0,14}$/;

export const countedToolCall: MiddlewareHandler<AppEnv> = async (c, next) => {
  const mark = c.req.header(TOOL_CALL_COUNTED_FOR_HEADER);
  if (mark !== undefined && USER_ID.test(mark)) c.set("toolCallCountedFor", Number(mark));
  await next();
};

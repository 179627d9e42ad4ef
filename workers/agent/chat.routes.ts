/**
 * /api/chat, behind the /api/* middleware (CORS, body limit, bearer auth):
 *   POST   { message, time_zone? } → the reply with its tool calls (JSON), or an SSE stream of
 *          tool_call / tool_result / reply / done (or error) with Accept: text/event-stream
 *   GET    → the stored conversation        DELETE → forget it, close connections (204)
 * Each user talks to their own ChatAgent, named by their id; failures answer with the REST
 * error shape, never a 500.
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import { refusal } from "../auth/access";
import { bearerToken } from "../auth/auth.service";
import type { Scope } from "../auth/scopes";
import type { AppEnv } from "../http/context";
import { readJsonBody } from "../http/json-body";
import { AppError, isErrorCode } from "../lib/errors";
import { log } from "../lib/log";
import { parseInput } from "../lib/validation";
import { resolveTimeZone } from "./intent/zoned-time";
import type { ChatFailure, ChatOutcome } from "./agent.types";

export const MAX_MESSAGE_CHARS = 4000;

export const chatBody = z.object({
  message: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .refine((text) => text.trim().length > 0, "must not be empty")
    .refine((text) => text.length <= MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`),
  time_zone: z
    .string()
    .refine((zone) => resolveTimeZone(zone) === zone, "must be an IANA time zone such as Asia/Karachi")
    .optional(),
});

/** The agent's failure as the REST error (with its retry hint); an unknown or `internal` code answers 503, never a 500. */
function agentError({ code, message, retry_after_ms }: ChatFailure): AppError {
  const details = retry_after_ms === undefined ? undefined : { retry_after_ms };
  return new AppError(isErrorCode(code) && code !== "internal" ? code : "unavailable", message, details ? { details } : undefined);
}

type ChatAgentStub = ReturnType<Env["CHAT_AGENT"]["get"]>;

/**
 * Runs `use` against the user's ChatAgent. The agent answers its own failures as values; what
 * can still throw here is the platform (the object reset, overloaded, or its RPC broke), which is
 * "unavailable" (503, try again), never a 500.
 */
async function withAgent<T>(c: Context<AppEnv>, use: (agent: ChatAgentStub) => Promise<T>): Promise<T> {
  try {
    return await use(c.env.CHAT_AGENT.getByName(String(c.var.user.id)));
  } catch (error) {
    if (error instanceof AppError) throw error;
    log.error("chat agent unreachable", { user: c.var.user.id, error: error instanceof Error ? error.message : String(error) });
    throw new AppError("unavailable", "The chat agent is unavailable right now; try again", { cause: error });
  }
}

function wantsStream(c: Context<AppEnv>): boolean {
  return /\btext\/event-stream\b/i.test(c.req.header("accept") ?? "");
}

/** Every chat route needs the `chat` scope (its MCP tool calls then need their own scopes). */
const CHAT_SCOPES: readonly Scope[] = ["chat"];

export function mountChatRoutes(app: Hono<AppEnv>): void {
  app.use("/api/chat", async (c, next) => {
    const refused = refusal(c.var.access, CHAT_SCOPES);
    if (refused) return refused;
    await next();
  });
  app.post("/api/chat", async (c) => {
    const body = parseInput(chatBody, await readJsonBody(c.req.raw));
    const user = c.var.user;
    const input = {
      message: body.message.trim(),
      userId: user.id,
      userName: user.name,
      token: bearerToken(c.req.header("authorization")),
      timeZone: body.time_zone,
    };
    if (wantsStream(c)) {
      const stream = await withAgent(c, (agent) => agent.chatStream(input));
      return new Response(stream, {
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
      });
    }
    const outcome = (await withAgent(c, (agent) => agent.chat(input))) as ChatOutcome;
    if (!outcome.ok) throw agentError(outcome);
    return c.json(outcome.result);
  });

  app.get("/api/chat", async (c) => {
    const messages = await withAgent(c, (agent) => agent.history());
    return c.json({ messages });
  });

  app.delete("/api/chat", async (c) => {
    await withAgent(c, (agent) => agent.reset());
    return c.body(null, 204);
  });
}

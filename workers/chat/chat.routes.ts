/**
 * /api/chat, behind the /api/* middleware (CORS, body limit, bearer auth, the REST rate limit):
 *   POST   { message, time_zone? } → the reply with its tool calls (JSON), or an SSE stream of
 *          tool_call / tool_result / reply / done (or error) with Accept: text/event-stream
 *   GET    → the stored conversation        DELETE → forget it, close connections (204)
 * The main Worker's side of the chat: it validates the request and hands it to the chat agent's
 * own Worker over the AGENT service binding (ChatService, workers/agent-worker/worker.ts), passing
 * the caller's principal — never their bearer token. Each user talks to their own ChatAgent, named by
 * their id there; failures answer with the REST error shape, never a 500.
 */
import type { Context, Hono } from "hono";
import * as z from "zod";
import type { ChatFailure, ChatOutcome, ChatRequest, ChatResult, HistoryMessage } from "../agent/agent.types";
import { resolveTimeZone } from "../agent/intent/zoned-time";
import { refusal } from "../auth/access";
import { type PrincipalWire, toWire } from "../auth/principal-wire";
import type { Scope } from "../auth/scopes";
import type { AppEnv } from "../http/context";
import { readJsonBody } from "../http/json-body";
import { AppError, isErrorCode } from "../lib/errors";
import { log } from "../lib/log";
import { parseInput } from "../lib/validation";

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

/** The reply of a turn the agent answered, or its failure as the REST error. */
function resultOf(outcome: ChatOutcome): ChatResult {
  if (!outcome.ok) throw agentError(outcome);
  return outcome.result;
}

type ChatService = Env["AGENT"];

/**
 * Runs `use` against the agent Worker. The agent answers its own failures as values; what can
 * still throw here is the platform (the agent Worker or its object unreachable, reset, overloaded,
 * or the RPC broke), which is "unavailable" (503, try again), never a 500.
 */
async function withAgent<T>(c: Context<AppEnv>, use: (agent: ChatService, principal: PrincipalWire) => Promise<T>): Promise<T> {
  try {
    return await use(c.env.AGENT, toWire(c.var.access.principal));
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
    const request: ChatRequest = { message: body.message.trim(), timeZone: body.time_zone };
    if (wantsStream(c)) {
      const stream = await withAgent(c, (agent, principal) => agent.chatStream(principal, request));
      return new Response(stream, {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-transform",
          "x-accel-buffering": "no",
        },
      });
    }
    return c.json(resultOf(await withAgent(c, (agent, principal) => agent.chat(principal, request))));
  });

  app.get("/api/chat", async (c) => {
    const messages: HistoryMessage[] = await withAgent(c, (agent, principal) => agent.history(principal));
    return c.json({ messages });
  });

  app.delete("/api/chat", async (c) => {
    await withAgent(c, (agent, principal) => agent.reset(principal));
    return c.body(null, 204);
  });
}

/**
 * The agent Worker's settings, and the one rule for how its MCP requests go out:
 * - MCP_URL on the main Worker's own origin (SELF_ORIGIN): each request goes to the main Worker over
 *   the MCP_EDGE binding (its AgentMcp entrypoint) with the caller's principal, for this turn only —
 *   no token exists on this side to send; the main Worker applies that principal's scopes and
 *   audience as it would the token's;
 * - any other MCP_URL: over the network with the MCP_TOKEN secret when set, else no credentials.
 * The bindings come from the generated AgentEnv (workers/agent-worker/wrangler.toml) and
 * workers/agent-worker/env.d.ts (the secrets, which must never be in [vars]).
 */
import type { ChatSessionOptions, TurnMcpAccess } from "../agent/chat-session";
import type { PrincipalWire } from "../auth/principal-wire";

/** How one MCP request goes out: the shape the outbound MCP client takes. */
export type RequestFetch = (request: Request) => Promise<Response>;

function originOf(url: string | undefined): string | undefined {
  if (!url || url.trim() === "") return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export function isOwnOrigin(env: Pick<AgentEnv, "SELF_ORIGIN" | "MCP_URL">): boolean {
  const own = originOf(env.SELF_ORIGIN);
  return own !== undefined && originOf(env.MCP_URL) === own;
}

/**
 * Requests served by the main Worker for `principal`, over the service binding. An AbortSignal
 * cannot cross RPC, so the request goes without it and an abort (the MCP client's timeouts) ends
 * the wait here instead.
 */
export function principalFetch(binding: AgentEnv["MCP_EDGE"], principal: PrincipalWire): RequestFetch {
  return (request) => {
    const { signal } = request;
    signal.throwIfAborted();
    const answer = binding.serve(principal, new Request(request, { signal: null }));
    return new Promise<Response>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      signal.addEventListener("abort", abort, { once: true });
      answer.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
    });
  };
}

/** How this turn's MCP requests go out, and with which Authorization header. */
export function turnMcpAccess(
  env: Pick<AgentEnv, "SELF_ORIGIN" | "MCP_URL" | "MCP_EDGE" | "MCP_TOKEN">,
  principal: PrincipalWire,
): TurnMcpAccess {
  if (isOwnOrigin(env)) return { fetch: principalFetch(env.MCP_EDGE, principal), authorization: undefined };
  const secret = env.MCP_TOKEN?.trim();
  return { fetch: undefined, authorization: secret ? `Bearer ${secret}` : undefined };
}

export function sessionOptions(
  env: Pick<AgentEnv, "MCP_URL" | "AI" | "AGENT_MODEL" | "AGENT_OPENAI_BASE_URL" | "AGENT_OPENAI_API_KEY">,
): ChatSessionOptions {
  return {
    mcpUrl: env.MCP_URL,
    model: {
      AI: env.AI,
      AGENT_MODEL: env.AGENT_MODEL,
      AGENT_OPENAI_BASE_URL: env.AGENT_OPENAI_BASE_URL,
      AGENT_OPENAI_API_KEY: env.AGENT_OPENAI_API_KEY,
    },
  };
}

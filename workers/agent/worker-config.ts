/**
 * The agent's settings as the Worker sees them, and the one rule for MCP credentials:
 * - MCP_URL on the Worker's own origin (SELF_ORIGIN): requests go through the SELF binding with
 *   the requesting user's OWN bearer token, so our servers derive the same identity; the token
 *   is passed per request and never stored;
 * - any other MCP_URL: the MCP_TOKEN secret when set, else no credentials.
 * Declared here rather than in worker-configuration.d.ts so `wrangler types` can regenerate that
 * file without clashing; the secrets must never be in [vars].
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import type { ChatAgent } from "../../durable-objects/chat-agent.do";
import { upstreamFetch } from "../gateway/upstream-client";
import type { ChatSessionOptions } from "./chat-session";

export interface AgentBindings {
  CHAT_AGENT: DurableObjectNamespace<ChatAgent>;
  /** The MCP server whose tools the agent adds to its own; "" = none. */
  MCP_URL?: string;
  /** Model name for Workers AI or the OpenAI-compatible endpoint; "" = the backend's default. */
  AGENT_MODEL?: string;
  /** Any OpenAI-compatible /v1 base URL; "" = not used. */
  AGENT_OPENAI_BASE_URL?: string;
  /** Secret: the key for AGENT_OPENAI_BASE_URL. */
  AGENT_OPENAI_API_KEY?: string;
  /** Secret: bearer token for a foreign MCP_URL. */
  MCP_TOKEN?: string;
  AI?: Ai;
}

export type AgentEnv = Env & AgentBindings;

export function agentEnv(env: Env): AgentEnv {
  return env as AgentEnv;
}

function originOf(url: string | undefined): string | undefined {
  if (!url || url.trim() === "") return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export function isOwnOrigin(env: AgentEnv): boolean {
  const own = originOf(env.SELF_ORIGIN);
  return own !== undefined && originOf(env.MCP_URL) === own;
}

/** The Authorization header for this request's MCP calls, or none. */
export function mcpAuthorization(env: AgentEnv, userToken: string): string | undefined {
  if (isOwnOrigin(env)) return `Bearer ${userToken}`;
  const secret = env.MCP_TOKEN?.trim();
  return secret ? `Bearer ${secret}` : undefined;
}

export function sessionOptions(env: AgentEnv): ChatSessionOptions {
  const fetch: FetchLike = upstreamFetch({ SELF: env.SELF, SELF_ORIGIN: env.SELF_ORIGIN });
  return {
    mcpUrl: env.MCP_URL,
    fetch,
    model: {
      AI: env.AI,
      AGENT_MODEL: env.AGENT_MODEL,
      AGENT_OPENAI_BASE_URL: env.AGENT_OPENAI_BASE_URL,
      AGENT_OPENAI_API_KEY: env.AGENT_OPENAI_API_KEY,
    },
  };
}

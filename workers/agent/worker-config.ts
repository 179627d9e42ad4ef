/**
 * The agent's settings as the Worker sees them, and the one rule for MCP credentials:
 * - MCP_URL on the Worker's own origin (SELF_ORIGIN): requests go through the SELF binding with
 *   the requesting user's OWN bearer token, so our servers derive the same identity; the token
 *   is passed per request and never stored;
 * - any other MCP_URL: the MCP_TOKEN secret when set, else no credentials.
 * The bindings come from the generated Env (wrangler.toml) and workers/env.d.ts (the secrets,
 * which must never be in [vars]).
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import { selfRoutedFetch } from "../mcp-client/self-routed-fetch";
import type { ChatSessionOptions } from "./chat-session";

function originOf(url: string | undefined): string | undefined {
  if (!url || url.trim() === "") return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export function isOwnOrigin(env: Pick<Env, "SELF_ORIGIN" | "MCP_URL">): boolean {
  const own = originOf(env.SELF_ORIGIN);
  return own !== undefined && originOf(env.MCP_URL) === own;
}

/** The Authorization header for this request's MCP calls, or none. */
export function mcpAuthorization(env: Pick<Env, "SELF_ORIGIN" | "MCP_URL" | "MCP_TOKEN">, userToken: string): string | undefined {
  if (isOwnOrigin(env)) return `Bearer ${userToken}`;
  const secret = env.MCP_TOKEN?.trim();
  return secret ? `Bearer ${secret}` : undefined;
}

export function sessionOptions(
  env: Pick<Env, "SELF" | "SELF_ORIGIN" | "MCP_URL" | "AI" | "AGENT_MODEL" | "AGENT_OPENAI_BASE_URL" | "AGENT_OPENAI_API_KEY">,
): ChatSessionOptions {
  const fetch: FetchLike = selfRoutedFetch(env);
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

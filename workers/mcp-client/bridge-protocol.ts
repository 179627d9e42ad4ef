/**
 * What `mcp-edge bridge` (bin/bridge/) adds to streamable HTTP, shared by the bridge and the
 * clients that talk to it: the header carrying a stdio process's environment and the two JSON-RPC
 * error codes the bridge answers with on its own behalf.
 */
import { base64url } from "../lib/encoding";

/** The header a bridge reads a stdio process's environment from: base64url(JSON object); bin/bridge/env.ts decodes it. */
export const BRIDGE_ENV_HEADER = "Mcp-Bridge-Env";

/**
 * JSON-RPC error code the bridge answers when its stdio process exited (or could not start)
 * before answering: a client types it `connection`, like any server that went away mid-call.
 */
export const BRIDGE_PROCESS_EXITED = -32050;

/**
 * JSON-RPC error code of the bridge's answer when it runs as many processes as it allows (per
 * token, HTTP 429; in total, HTTP 503; both with Retry-After): a client types it `busy`.
 * `data` is `{limit, max, retry_after_s}`.
 */
export const BRIDGE_AT_CAPACITY = -32051;

/** base64url(JSON) of the env, as the bridge expects; UTF-8 safe. */
export function encodeBridgeEnv(env: Record<string, string>): string {
  return base64url(new TextEncoder().encode(JSON.stringify(env)));
}

/**
 * Who is calling, as far as one stateless MCP request tells, for the tool-call audit (decision 0060):
 * - name and version: the `_meta` client info of a 2026-07-28 request (the SDK's CLIENT_INFO_META_KEY).
 *   A 2025 client sends its clientInfo only in `initialize`, a request of its own, and no session
 *   keeps it here: null for its tool calls;
 * - the protocol revision: the request's `_meta` one, else its MCP-Protocol-Version header;
 * - the OAuth client the token was issued to (authenticated, unlike the name): null for an API token.
 * The name and version are the client's own words: control and format characters are dropped and
 * the text cut, so a client cannot write more than a line into a person's activity.
 */
import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import type { Principal } from "../auth/principal";
import { isJsonObject } from "../lib/json";

export interface McpClientFacts {
  name: string | null;
  version: string | null;
  protocol_version: string | null;
  oauth_client_id: string | null;
}

const MAX_NAME = 100;
const MAX_VERSION = 40;
const MAX_CLIENT_ID = 256;
const REVISION = /^\d{4}-\d{2}-\d{2}$/;

function cleanText(value: unknown, max: number): string | null {
  if (typeof value !== "string") return null;
  const cleaned = value
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .trim()
    .slice(0, max);
  return cleaned === "" ? null : cleaned;
}

function requestMeta(body: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(body)) return undefined;
  const params = body["params"];
  const meta = isJsonObject(params) ? params["_meta"] : undefined;
  return isJsonObject(meta) ? meta : undefined;
}

/** The facts of one parsed POST body (a 2025-03-26 batch has no `_meta` client info: only the header and token count). */
export function mcpClientFacts(body: unknown, request: Request, principal: Principal): McpClientFacts {
  const meta = requestMeta(body);
  const info = meta?.[CLIENT_INFO_META_KEY];
  const revision = meta?.[PROTOCOL_VERSION_META_KEY] ?? request.headers.get("mcp-protocol-version");
  return {
    name: isJsonObject(info) ? cleanText(info["name"], MAX_NAME) : null,
    version: isJsonObject(info) ? cleanText(info["version"], MAX_VERSION) : null,
    protocol_version: typeof revision === "string" && REVISION.test(revision) ? revision : null,
    oauth_client_id: cleanText(principal.clientId, MAX_CLIENT_ID),
  };
}

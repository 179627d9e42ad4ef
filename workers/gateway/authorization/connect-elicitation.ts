/**
 * A source call that answered the gateway's own `authorization_required` (SourceCalls'
 * `ConnectRequest`, whose link is on the gateway's origin; never anything read from an upstream's
 * result, decision 0051), offered to the client as a URL-mode elicitation when its protocol
 * revision has one, so the client can open the connect link itself instead of the model relaying it:
 * - 2026-07-28: an `inputRequired` result with an embedded URL elicitation, when the request's
 *   envelope declares `elicitation.url`. The client opens the link and retries; the retry calls
 *   again, and if the user still did not connect it gets the typed error result (no second ask).
 * - 2025-11-25: the `-32042` URLElicitationRequired error, only to a client known to take URL
 *   elicitation — the revision forbids it otherwise, and a client without URL mode would turn a
 *   readable result into an exception. The stateless 2025 lane keeps no initialize capabilities,
 *   so the request must say so itself: `elicitation.url` in its `_meta` client capabilities (the
 *   2026-07-28 envelope key, which dual-era clients send). Such a request never takes the fast path
 *   (call-fast-path.ts answers only calls without `_meta`).
 * - Anything else: the typed error result, whose text and `_meta.authorization` carry the link.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
  UrlElicitationRequiredError,
} from "@modelcontextprotocol/server";
import { isJsonObject } from "../../lib/json";
import type { ConnectRequest } from "../sources/upstream.types";

export const CONNECT_INPUT_KEY = "connect";
/** The first revision with the -32042 error. */
const URL_ELICITATION_ERROR_VERSION = "2025-11-25";
const MODERN_VERSION = "2026-07-28";

function connectMessage(slug: string, authorization: ConnectRequest): string {
  const again = authorization.state === "authorization_expired" ? "again " : "";
  return `Connect your account ${again}for ${slug}${authorization.scope ? ` (permissions: ${authorization.scope})` : ""}, then the call continues.`;
}

/** The request's reserved `_meta` keys: the SDK lifts them into `envelope` before the handler runs. */
function envelopeKey(ctx: ServerContext, key: string): unknown {
  const envelope: Record<string, unknown> = { ...ctx.mcpReq.envelope };
  return envelope[key] ?? ctx.mcpReq._meta?.[key];
}

function requestVersion(ctx: ServerContext): string | undefined {
  const fromEnvelope = envelopeKey(ctx, PROTOCOL_VERSION_META_KEY);
  return typeof fromEnvelope === "string" ? fromEnvelope : (ctx.http?.req?.headers.get("mcp-protocol-version") ?? undefined);
}

function declaresUrlElicitation(ctx: ServerContext): boolean {
  const capabilities = envelopeKey(ctx, CLIENT_CAPABILITIES_META_KEY);
  if (!isJsonObject(capabilities)) return false;
  const elicitation = capabilities["elicitation"];
  return isJsonObject(elicitation) && isJsonObject(elicitation["url"]);
}

function urlElicitation(slug: string, authorization: ConnectRequest): UrlElicitationRequiredError {
  const message = connectMessage(slug, authorization);
  return new UrlElicitationRequiredError(
    [{ mode: "url", elicitationId: crypto.randomUUID(), url: authorization.url, message }],
    `${message} Open ${authorization.url}`,
  );
}

/** The answer to send instead of (or as) the error result; throws the -32042 error on 2025-11-25. */
export function askToConnect(
  slug: string,
  result: CallToolResult,
  authorization: ConnectRequest,
  ctx: ServerContext,
): CallToolResult | InputRequiredResult {
  const version = requestVersion(ctx);
  const message = connectMessage(slug, authorization);
  if (version === MODERN_VERSION) {
    const alreadyAsked = ctx.mcpReq.inputResponses?.[CONNECT_INPUT_KEY] !== undefined;
    if (alreadyAsked || !declaresUrlElicitation(ctx)) return result;
    return inputRequired({ inputRequests: { [CONNECT_INPUT_KEY]: inputRequired.elicitUrl({ message, url: authorization.url }) } });
  }
  if (version === URL_ELICITATION_ERROR_VERSION && declaresUrlElicitation(ctx)) throw urlElicitation(slug, authorization);
  return result;
}

/**
 * OAuth error responses in the RFC 6749 §5.2 shape (`{ error, error_description }`), for the
 * endpoints the library serves and the checks we run in front of them. Nothing thrown by the
 * library may reach a client as a 500 or a stack trace: `guardOAuth` turns it into one of these.
 */
import { log } from "../lib/log";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "invalid_target"
  | "invalid_scope"
  | "temporarily_unavailable"
  | "invalid_client_metadata";

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export function oauthError(code: OAuthErrorCode, description: string, status = 400, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: code, error_description: description }), {
    status,
    headers: { "Content-Type": "application/json", "Access-Control-Allow-Origin": "*", ...NO_STORE, ...headers },
  });
}

/** Runs a library endpoint; anything it throws is logged and answered `invalid_request`, never a 500. */
export async function guardOAuth(endpoint: string, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    log.error("oauth endpoint threw", { endpoint, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    return oauthError("invalid_request", "The request could not be processed");
  }
}

/** Bodies of the token and registration endpoints are small; anything bigger is refused unread. */
export const MAX_OAUTH_BODY_BYTES = 16 * 1024;

/** The body as text, or undefined when it exceeds `MAX_OAUTH_BODY_BYTES`. */
export async function readLimitedText(request: Request): Promise<string | undefined> {
  if (Number(request.headers.get("content-length") ?? "0") > MAX_OAUTH_BODY_BYTES) return undefined;
  const text = await request.text();
  return new TextEncoder().encode(text).byteLength > MAX_OAUTH_BODY_BYTES ? undefined : text;
}

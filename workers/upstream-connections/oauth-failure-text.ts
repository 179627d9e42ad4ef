/**
 * What an upstream authorization server's failure says on mcp-edge's pages, REST answers and the
 * stored `last_error`: its OAuth error code — only one of the codes the RFCs define — and our own
 * words for it, never the server's text (`error_description`, an error body): anyone can run an
 * authorization server and a source can name it, so its words would speak as mcp-edge. The full
 * failure goes to the log (protection.ts#describeOAuthFailure).
 */
import { AuthorizationServerMismatchError, IssuerMismatchError, OAuthError } from "../mcp-client/oauth";
import { AppError } from "../lib/errors";
import { OAuthUrlRefused } from "./oauth-fetch";

/** RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8707 §2: each code in our words. */
const CODES: Readonly<Record<string, string>> = {
  invalid_request: "it found the request malformed",
  unauthorized_client: "it does not let mcp-edge connect this way",
  access_denied: "access was not allowed",
  unsupported_response_type: "it does not offer the authorization code flow",
  invalid_scope: "it refused the permissions asked for",
  server_error: "it failed",
  temporarily_unavailable: "it is unavailable for now",
  invalid_client: "it did not accept how mcp-edge identified itself",
  invalid_grant: "it refused the authorization code (expired, used, or not issued for this connect)",
  unsupported_grant_type: "it does not offer this kind of token request",
  invalid_target: "it does not serve the resource the tokens were asked for",
  invalid_redirect_uri: "it refused mcp-edge's redirect URI",
  invalid_client_metadata: "it refused mcp-edge's client registration",
  invalid_software_statement: "it refused mcp-edge's client registration",
  unapproved_software_statement: "it refused mcp-edge's client registration",
};

/** `<code> (<our words>)` for a code the RFCs define; undefined for anything else. */
export function knownOAuthError(code: string | undefined): string | undefined {
  return code !== undefined && Object.hasOwn(CODES, code) ? `${code} (${CODES[code]})` : undefined;
}

/** A failed exchange with an upstream's authorization server, in words that are all mcp-edge's. */
export function oauthFailureSummary(error: unknown): string {
  if (error instanceof OAuthError) return knownOAuthError(error.code) ?? "it answered an error that is not an OAuth error code";
  if (error instanceof IssuerMismatchError) return "it named another issuer than the server this connect was sent to (refused, RFC 9207)";
  if (error instanceof AuthorizationServerMismatchError) return "the source's authorization server changed while connecting (refused)";
  // Ours: what the upstream URL rules refused, or a refusal of this service.
  if (error instanceof OAuthUrlRefused || error instanceof AppError) return error.message;
  return "it could not be reached, or did not answer as an OAuth server";
}

/** What the callback page says when the server sent an error instead of a code (`error` in its query). */
export function callbackErrorText(code: string | undefined): string {
  if (code === "access_denied") return "You did not allow the connection. Nothing was connected.";
  const known = knownOAuthError(code);
  return known
    ? `The authorization server answered ${known}. Nothing was connected.`
    : "The authorization server did not send an authorization code. Nothing was connected.";
}

/**
 * The WWW-Authenticate challenges of every protected route (RFC 6750, RFC 9728, MCP authorization):
 * - 401: `Bearer realm="OAuth"`, `error="invalid_token"` when a token was sent, the route's
 *   `resource_metadata` URL and the `scope` a first sign-in asks for (default-scopes-settings.ts:
 *   every scope the MCP server's tools use unless the operator narrowed it; omitted for /api and the root);
 * - 403: `error="insufficient_scope"` naming every scope the operation needs, with the same
 *   `resource_metadata` URL (the library's `insufficientScope`), so a client steps up in one round trip.
 */
import { insufficientScope } from "@cloudflare/workers-oauth-provider";
import { type ResourcePath, resourceMetadataUrl, resourceUrl } from "./resources";
import type { Scope } from "./scopes";

export function authenticationChallenge(
  issuer: string | undefined,
  path: ResourcePath,
  tokenSent: boolean,
  asked: readonly Scope[],
): string {
  const parts = ['Bearer realm="OAuth"'];
  if (tokenSent) parts.push('error="invalid_token"');
  if (issuer) parts.push(`resource_metadata="${resourceMetadataUrl(issuer, path)}"`);
  if (asked.length > 0) parts.push(`scope="${asked.join(" ")}"`);
  return parts.join(", ");
}

export function insufficientScopeChallenge(issuer: string | undefined, path: ResourcePath, needed: readonly Scope[]): string {
  if (!issuer) return `Bearer realm="OAuth", error="insufficient_scope", scope="${needed.join(" ")}"`;
  const response = insufficientScope({ token: "", audience: resourceUrl(issuer, path), scope: [] }, [...needed]);
  return response.headers.get("www-authenticate")!;
}

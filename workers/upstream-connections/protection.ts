/**
 * Is an upstream that refused discovery with 401 an MCP-authorization resource? Asks it without
 * credentials, reads the challenge's `resource_metadata`, and looks up its Protected Resource
 * Metadata and authorization server (RFC 9728, RFC 8414 / OIDC discovery, through the SDK): what
 * a source in state needs_authorization records.
 */
import { discoverOAuthServerInfo, extractWWWAuthenticateParams, OAuthError, type OAuthDiscoveryState } from "../mcp-client/oauth";
import { AppError } from "../lib/errors";
import type { OAuthFetch } from "./oauth-fetch";

const PROBE_TIMEOUT_MS = 10_000;

export interface Protection {
  resourceMetadataUrl: string | null;
  resource: string;
  authorizationServer: string;
  scopesSupported: string[];
  discovery: OAuthDiscoveryState;
}

/** Undefined when the upstream publishes no metadata naming an authorization server (its 401 stays an ordinary failure). */
export async function discoverProtection(url: string, fetchFn: OAuthFetch): Promise<Protection | undefined> {
  const probe = await fetchFn(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  const resourceMetadataUrl = probe.status === 401 ? extractWWWAuthenticateParams(probe).resourceMetadataUrl : undefined;
  await probe.body?.cancel();
  const info = await discoverOAuthServerInfo(url, { resourceMetadataUrl, fetchFn });
  if (!info.resourceMetadata || !info.authorizationServerMetadata) return undefined;
  return {
    resourceMetadataUrl: resourceMetadataUrl?.href ?? null,
    resource: info.resourceMetadata.resource,
    authorizationServer: info.authorizationServerMetadata.issuer,
    scopesSupported: (info.resourceMetadata.scopes_supported ?? []).slice(0, 100),
    discovery: { ...info, ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}) },
  };
}

/** A failure of an OAuth exchange in words safe to store and show: the OAuth error code and message, never a request. */
export function describeOAuthFailure(error: unknown): string {
  if (error instanceof OAuthError) return `${error.code}${error.message ? `: ${error.message}` : ""}`.slice(0, 300);
  if (error instanceof AppError) return error.message;
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : "failed";
}

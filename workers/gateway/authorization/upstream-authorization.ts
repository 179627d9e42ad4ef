/**
 * What the gateway's call and discovery paths need of sources' MCP authorization, as a port the
 * upstream-oauth area implements (workers/upstream-oauth/, wired in workers/services.ts), so the
 * gateway never depends on it: the owner's bearer token for a call, with the resource it was
 * issued for, and what to ask the owner when there is none (the typed `authorization_required`
 * answer a call then gets is built in source-call-result.ts). The token goes into the call's
 * config only (headers, fingerprint and the resource it may be sent to), on both call paths, per
 * call; the Durable Object never stores it.
 */
import { sha256Hex } from "../../lib/encoding";
import type { UpstreamConfig } from "../sources/upstream.types";

/** What the authorization side needs of a source: its owner and its MCP endpoint. */
export interface OAuthSource {
  id: number;
  userId: number;
  mcpServerUrl: string;
}

/** Why a call cannot carry a token: the owner must connect (again), or grant more scopes. */
export interface AuthorizationNeeded {
  state: "needs_authorization" | "authorization_expired";
  /** The scopes to ask for (space-separated), when known. */
  scope: string | undefined;
}

/** The owner's access token and the protected resource (RFC 8707) it was issued for: the only URLs it may go to. */
export interface UpstreamBearer {
  token: string;
  resource: string;
}

export function isAuthorizationNeeded(answer: UpstreamBearer | AuthorizationNeeded): answer is AuthorizationNeeded {
  return "state" in answer;
}

export interface UpstreamAuthorizer {
  /**
   * The owner's access token, refreshed when due or (`afterUnauthorized`) after a 401; else why
   * not — also when the resource it was issued for does not cover the source's URL.
   */
  bearer(source: OAuthSource, afterUnauthorized?: boolean): Promise<UpstreamBearer | AuthorizationNeeded>;
  /** The upstream answered 403 insufficient_scope: records what it asked for, and answers what to ask for (granted ∪ challenged). */
  needsScope(source: OAuthSource, scope: string | undefined): Promise<AuthorizationNeeded>;
  /** After a 401 at discovery: records the upstream's protection; false when it is not MCP authorization. */
  learnProtection(source: OAuthSource): Promise<boolean>;
  /**
   * The browser link that connects the owner's account; undefined without a known origin. It
   * carries no scope: the scopes asked for are the ones the source's upstream named.
   */
  connectLink(sourceId: number): string | undefined;
  /** Revokes (when the server offers it) and forgets the owner's tokens; `forDelete`: the source is being deleted. */
  disconnect(userId: number, sourceId: number, forDelete?: boolean): Promise<{ revoked: boolean }>;
  /**
   * The source's MCP URL changed: its connection ends before anything reaches the new URL —
   * revoked at the old authorization server (best effort), its tokens, registration, flows and
   * learned protection forgotten, the source no longer marked OAuth until a discovery finds it
   * again. True when there was a connection state to end.
   */
  endForUrlChange(userId: number, sourceId: number): Promise<boolean>;
}

/**
 * The config with the owner's token as its bearer (any `Authorization` the source's own headers
 * had is replaced), the resource it may be sent to (checked where each request leaves:
 * bearer-resource.ts), and a fingerprint that changes with the token, so a warm sessionful
 * connection opened with an older token is not reused.
 */
export async function withBearer(config: UpstreamConfig, bearer: UpstreamBearer): Promise<UpstreamConfig> {
  const headers = Object.fromEntries(Object.entries(config.headers).filter(([name]) => name.toLowerCase() !== "authorization"));
  headers["Authorization"] = `Bearer ${bearer.token}`;
  return { ...config, headers, bearerResource: bearer.resource, fingerprint: await sha256Hex(`${config.fingerprint}\n${bearer.token}`) };
}

export function authorizationMessage(slug: string, needed: AuthorizationNeeded, url: string | undefined): string {
  const why =
    needed.state === "authorization_expired"
      ? `your connection to source ${slug} expired (its server refused to renew it)`
      : `source ${slug} needs you to connect your account${needed.scope ? ` with the permissions ${needed.scope}` : ""}`;
  return `${why}. ${url ? `Open ${url} in a browser signed in to mcp-edge, then call again.` : "Connect it from the console or POST /api/sources/{id}/authorize, then call again."}`;
}

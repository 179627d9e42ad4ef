/**
 * The gateway's port to upstream connections (workers/upstream-connections/: each user's
 * connection to an OAuth-protected source's authorization server), both ways, wired by the
 * composition root (workers/services.ts); the two sides import nothing else of each other
 * (`npm run lint:deps`).
 * - What the gateway's call and discovery paths need of a source's authorization, which upstream
 *   connections implement (`UpstreamAuthorizer`): the owner's bearer token for a call, with the
 *   resource it was issued for, and what to ask the owner when there is none (the typed
 *   `authorization_required` answer a call then gets is built in source-call-result.ts). The token
 *   goes into the call's config only (headers, fingerprint and the resource it may be sent to), on
 *   both call paths, per call; the Durable Object never stores it.
 * - What the gateway lends upstream connections (`GatewayForConnections`): the owner's source by id,
 *   and the box a source's secrets are sealed in, which seals a connection's tokens, client and
 *   flows too, each bound to its owner and source.
 */
import type { Db } from "../../lib/db";
import { sha256Hex } from "../../lib/encoding";
import { secretBox, type SecretBox } from "../sources/secrets";
import { getSource } from "../sources/sources.repo";
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

/** The owner's access token and the protected resource (RFC 8707) it was issued for: the only URLs it may go to (`resourceCovers`). */
export interface UpstreamBearer {
  token: string;
  resource: string;
}

/**
 * Where a token issued for `resource` may go: the same origin, and the resource's path a prefix of
 * the URL's on a segment boundary (`/mcp` covers `/mcp/x`, not `/mcpx`) — the rule the SDK applies
 * when it asks for the token (`checkResourceAllowed`). Upstream connections hand out a token only
 * for a source URL it covers; the gateway checks it again where each request leaves (bearer-resource.ts).
 */
export function resourceCovers(resource: string, url: string): boolean {
  let owned: URL;
  let called: URL;
  try {
    owned = new URL(resource);
    called = new URL(url);
  } catch {
    return false;
  }
  // Only http(s) URLs have an origin to compare ("null" for the rest).
  if (owned.origin === "null" || owned.origin !== called.origin) return false;
  const segments = (path: string) => (path.endsWith("/") ? path : `${path}/`);
  return segments(called.pathname).startsWith(segments(owned.pathname));
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

/** A source as the connect pages show it. */
export interface ConnectableSource extends OAuthSource {
  name: string;
}

/** What the gateway lends upstream connections. */
export interface GatewayForConnections {
  /** The owner's source by id; undefined for an unknown id or another user's source. */
  source(userId: number, sourceId: number): Promise<ConnectableSource | undefined>;
  /** Seals and opens values bound to a user and a name, under SOURCE_SECRETS_KEY (gateway/sources/secrets.ts). */
  secrets: SecretBox;
}

export function gatewayForConnections(db: Db, env: Pick<Env, "SOURCE_SECRETS_KEY">): GatewayForConnections {
  return { source: (userId, sourceId) => getSource(db, userId, sourceId), secrets: secretBox(env.SOURCE_SECRETS_KEY) };
}

/**
 * A source's MCP authorization as a whole: learned at discovery (the upstream answered 401 and
 * publishes Protected Resource Metadata: needs_authorization), shown to its owner (facts, never a
 * token), and ended — disconnect and delete revoke the tokens upstream (RFC 7009) when the server
 * offers revocation, and forget them either way.
 */
import { nowIso } from "../lib/clock";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import type { OAuthSource } from "../gateway/upstream-authorization";
import * as repo from "./authorizations.repo";
import type { ClientIdentification } from "./gateway-oauth-client";
import { describeOAuthFailure, discoverProtection } from "./protection";
import { revokeTokens } from "./revocation";
import { storableDiscovery } from "./sealed-state";
import type { UpstreamAuthContext } from "./upstream-auth-context";

export interface AuthorizationView {
  status: "needs_authorization" | "connected" | "authorization_expired";
  authorization_server: string | null;
  resource: string | null;
  scopes_supported: string[];
  granted_scope: string | null;
  client_identification: ClientIdentification | null;
  connected_at: string | null;
  refreshed_at: string | null;
  expires_at: string | null;
  last_error: string | null;
}

export class ConnectionState {
  constructor(private readonly ctx: UpstreamAuthContext) {}

  /**
   * After a discovery the upstream refused with 401: records its protection (needs_authorization)
   * when it is an MCP-authorization resource (protection.ts); false when it is not.
   */
  async learnProtection(source: OAuthSource): Promise<boolean> {
    try {
      const found = await discoverProtection(source.mcpServerUrl, this.ctx.fetchFn);
      if (!found) return false;
      const { discovery, ...facts } = found;
      await repo.recordProtection(this.ctx.deps.db, source.userId, source.id, { ...facts, discoveryState: storableDiscovery(discovery) }, nowIso());
      return true;
    } catch (error) {
      log.warn("upstream oauth discovery failed", { source_id: source.id, error: describeOAuthFailure(error) });
      return false;
    }
  }

  /** The authorization facts of the owner's source (no secrets), or undefined when it does not use OAuth. */
  async describe(userId: number, sourceId: number): Promise<AuthorizationView | undefined> {
    const row = await repo.getAuthorization(this.ctx.deps.db, userId, sourceId);
    if (!row) return undefined;
    return {
      status: row.status,
      authorization_server: row.authorizationServer,
      resource: row.resource,
      scopes_supported: row.scopesSupported,
      granted_scope: row.grantedScope,
      client_identification: row.clientIdentification,
      connected_at: row.connectedAt,
      refreshed_at: row.refreshedAt,
      expires_at: row.tokenExpiresAt,
      last_error: row.lastError,
    };
  }

  /** The connection's facts (never a token); not found for a source of another user or one without OAuth. */
  async view(userId: number, sourceId: number): Promise<AuthorizationView> {
    const view = await this.describe(userId, sourceId);
    if (!view) throw new AppError("not_found", `Source ${sourceId} not found, or it does not use OAuth`);
    return view;
  }

  /**
   * Disconnects the owner's account: revokes the tokens upstream when the authorization server
   * offers revocation (RFC 7009; best effort, the local copy goes either way) and forgets them.
   * `forDelete`: the source is going, its row goes with it.
   */
  async disconnect(userId: number, sourceId: number, forDelete = false): Promise<{ revoked: boolean }> {
    const { db, audit } = this.ctx.deps;
    const row = forDelete ? await repo.getAuthorization(db, userId, sourceId) : await this.ctx.owned(userId, sourceId);
    if (!row) return { revoked: false };
    let revoked = false;
    if (row.tokens !== null) {
      const opened = await this.ctx.state.open(row);
      revoked = await revokeTokens(opened, this.ctx.fetchFn).catch((error: unknown) => {
        log.warn("upstream token revocation failed", { source_id: sourceId, error: describeOAuthFailure(error) });
        return false;
      });
    }
    if (!forDelete) {
      await repo.updateAuthorization(db, userId, sourceId, { status: "needs_authorization", tokens: null, tokenExpiresAt: null, grantedScope: null, refreshedAt: null, refreshRetryAt: null, updatedAt: nowIso() });
    }
    if (row.tokens !== null) audit.record({ userId, sourceId, action: "disconnected", scope: null, identification: null });
    return { revoked };
  }
}

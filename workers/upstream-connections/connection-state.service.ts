/**
 * A source's MCP authorization as a whole: learned at discovery (the upstream answered 401 and
 * publishes Protected Resource Metadata: needs_authorization), shown to its owner (facts, never a
 * token), and ended — disconnect, delete and a change of the source's URL revoke the tokens upstream
 * (RFC 7009) when the server offers revocation, and forget them either way.
 */
import { nowIso } from "../lib/clock";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import type { OAuthSource } from "../gateway/authorization/upstream-authorization";
import * as repo from "./authorizations.repo";
import { issuerRedirectUri } from "./gateway-client";
import type { ClientIdentification } from "./gateway-oauth-client";
import { bindingWarnings, issuerOf } from "./flow-binding";
import { describeOAuthFailure, discoverProtection } from "./protection";
import { revokeTokens } from "./revocation";
import { discoveryOf, storableDiscovery } from "./sealed-state";
import type { ConnectionContext } from "./connection-context";

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
  /** The redirect URI to register for a client of your own at this authorization server (one per server: decision 0047). */
  redirect_uri: string | null;
  /** What the owner should know before connecting (an authorization server that does not advertise RFC 9207 `iss`). */
  warnings: string[];
}

export class ConnectionState {
  constructor(private readonly ctx: ConnectionContext) {}

  /**
   * After a discovery the upstream refused with 401: records its protection (needs_authorization)
   * when it is an MCP-authorization resource (protection.ts); false when it is not.
   */
  async learnProtection(source: OAuthSource): Promise<boolean> {
    try {
      const found = await discoverProtection(source.mcpServerUrl, this.ctx.fetchFn);
      if (!found) return false;
      const { discovery, ...facts } = found;
      await repo.recordProtection(
        this.ctx.deps.db,
        source.userId,
        source.id,
        { ...facts, discoveryState: storableDiscovery(discovery) },
        nowIso(),
      );
      return true;
    } catch (error) {
      log.warn("upstream connection: protection discovery failed", { source_id: source.id, error: describeOAuthFailure(error) });
      return false;
    }
  }

  /** The authorization facts of the owner's source (no secrets), or undefined when it does not use OAuth. */
  async describe(userId: number, sourceId: number): Promise<AuthorizationView | undefined> {
    const row = await repo.getAuthorization(this.ctx.deps.db, userId, sourceId);
    if (!row) return undefined;
    const discovery = discoveryOf(row);
    const issuer = issuerOf(discovery);
    const origin = this.ctx.deps.origin;
    const redirectUri = issuer && origin ? await issuerRedirectUri(origin, issuer) : null;
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
      redirect_uri: redirectUri,
      warnings: bindingWarnings(discovery, redirectUri ?? undefined),
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
    const { db } = this.ctx.deps;
    const row = forDelete ? await repo.getAuthorization(db, userId, sourceId) : await this.ctx.owned(userId, sourceId);
    if (!row) return { revoked: false };
    const revoked = await this.revoke(row);
    if (!forDelete) {
      await repo.updateAuthorization(db, userId, sourceId, {
        status: "needs_authorization",
        tokens: null,
        tokenExpiresAt: null,
        grantedScope: null,
        refreshedAt: null,
        refreshRetryAt: null,
        updatedAt: nowIso(),
      });
    }
    return { revoked };
  }

  /**
   * The source's MCP URL changed: a token is issued for one resource, so the connection ends before
   * anything reaches the new URL. Forgotten first — tokens, registration, flows in progress and the
   * protection learned at the old URL, the source no longer marked `oauth` (its next discovery asks
   * the new URL without a token and learns what it needs) — then revoked at the old authorization
   * server, best effort, from the row read before. True when there was a connection state to end.
   */
  async endForUrlChange(userId: number, sourceId: number): Promise<boolean> {
    const { db } = this.ctx.deps;
    const row = await repo.getAuthorization(db, userId, sourceId);
    await repo.forgetConnection(db, userId, sourceId);
    if (!row) return false;
    await this.revoke(row);
    return true;
  }

  /** Revokes the row's tokens upstream, if any (RFC 7009, best effort), and records the disconnect; true when the server confirmed. */
  private async revoke(row: repo.AuthorizationRow): Promise<boolean> {
    if (row.tokens === null) return false;
    const opened = await this.ctx.state.open(row);
    const revoked = await revokeTokens(opened, this.ctx.fetchFn).catch((error: unknown) => {
      log.warn("upstream token revocation failed", { source_id: row.sourceId, error: describeOAuthFailure(error) });
      return false;
    });
    this.ctx.deps.audit.record({ userId: row.userId, sourceId: row.sourceId, action: "disconnected", scope: null, identification: null });
    return revoked;
  }
}

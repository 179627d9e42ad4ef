/**
 * The owner's upstream access token for each call of an OAuth-protected source: refreshed before
 * expiry or after a 401 — one refresh at a time per (user, source) across isolates (refresh-gate.ts,
 * decision 0040) — and, when there is none to use, what to ask the owner for. A refused refresh
 * leaves the source authorization_expired; a transient one (the authorization server unreachable,
 * slow, 5xx, 429, its answer broken off) keeps the connection and its tokens, and the call answers
 * `unavailable` (refresh-failure.ts); when the server asked for a pause (Retry-After), calls within
 * it answer the same without asking the server again. Only the row of the source's owner is ever read,
 * and a token is handed out only for a source URL the resource it was issued for covers.
 */
import { runOAuth } from "../mcp-client/oauth";
import { nowIso } from "../lib/clock";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import {
  type AuthorizationNeeded,
  type OAuthSource,
  resourceCovers,
  type UpstreamBearer,
} from "../gateway/authorization/upstream-authorization";
import * as repo from "./authorizations.repo";
import { GatewayOAuthClient, type OAuthState } from "./gateway-oauth-client";
import {
  deferralNote,
  deferredRefreshError,
  pendingDeferral,
  readDeferral,
  RefreshExchange,
  refreshRetryAt,
  type TransientFailure,
} from "./refresh-failure";
import type { ConnectionContext } from "./connection-context";

/** An access token this close to expiry is refreshed before a call rather than after its 401. */
export const REFRESH_MARGIN_MS = 60 * 1000;
/** Rounds of waiting at the refresh gate before giving up (each ends when a holder ends or its lease runs out). */
const REFRESH_GATE_ROUNDS = 3;

/** Whether the row's tokens were issued for a resource that covers the source's URL. */
function covers(row: repo.AuthorizationRow, source: OAuthSource): boolean {
  return row.resource !== null && resourceCovers(row.resource, source.mcpServerUrl);
}

function scopeList(scope: string | undefined): string[] {
  return (scope ?? "").split(" ").filter((name) => name !== "");
}

function unionOf(...lists: string[][]): string[] {
  return [...new Set(lists.flat())];
}

/** Why a row gives no token: never connected (or disconnected), or its refresh was refused. */
function neededFor(row: repo.AuthorizationRow | undefined): AuthorizationNeeded {
  return {
    state: row?.status === "authorization_expired" ? "authorization_expired" : "needs_authorization",
    scope: row?.grantedScope ?? undefined,
  };
}

export class CallTokens {
  constructor(private readonly ctx: ConnectionContext) {}

  /**
   * The owner's access token for a call of `source`, refreshed first when it expires within
   * REFRESH_MARGIN_MS, or when `afterUnauthorized` (the upstream just answered 401 with it).
   * Only the row of this owner and this source is read: no other user's token can come back.
   */
  async bearer(source: OAuthSource, afterUnauthorized = false): Promise<UpstreamBearer | AuthorizationNeeded> {
    const row = await repo.getAuthorization(this.ctx.deps.db, source.userId, source.id);
    if (!row || row.status !== "connected" || row.tokens === null) return neededFor(row);
    // Not even refreshed for a URL its resource does not cover: the refresh would answer for that resource too.
    if (!covers(row, source)) return this.misbound(source);
    const opened = await this.ctx.state.open(row);
    const fresh = opened.expiresAt === null || opened.expiresAt - this.ctx.now() > REFRESH_MARGIN_MS;
    if (fresh && !afterUnauthorized) return this.bound(source, row, opened.tokens!.access_token);
    // The authorization server asked for a pause (Retry-After) that has not ended: it is not asked again before.
    const waiting = pendingDeferral(row, this.ctx.now());
    if (waiting) return this.deferred(source, row, opened, waiting, afterUnauthorized);
    return this.refreshOnce(source, row, afterUnauthorized);
  }

  /**
   * The upstream asked for more scopes (403 insufficient_scope): what it named is kept with what its
   * metadata listed, so the next connect — whatever link starts it — asks for them; the answer
   * names granted ∪ challenged.
   */
  async needsScope(source: OAuthSource, scope: string | undefined): Promise<AuthorizationNeeded> {
    const row = await repo.getAuthorization(this.ctx.deps.db, source.userId, source.id);
    const challenged = scopeList(scope);
    if (row && challenged.some((name) => !row.scopesSupported.includes(name))) {
      const scopesSupported = unionOf(row.scopesSupported, challenged).slice(0, 100);
      await repo.updateAuthorization(this.ctx.deps.db, source.userId, source.id, { scopesSupported });
    }
    const union = unionOf(scopeList(row?.grantedScope ?? undefined), challenged).join(" ");
    return { state: "needs_authorization", scope: union === "" ? undefined : union };
  }

  /** The token as this call may use it, with the resource it was issued for; refused when that resource does not cover the source's URL. */
  private bound(source: OAuthSource, row: repo.AuthorizationRow, token: string): UpstreamBearer | AuthorizationNeeded {
    return covers(row, source) ? { token, resource: row.resource! } : this.misbound(source);
  }

  /**
   * The stored connection was made for another resource than the source's URL now names (a URL
   * changed by a path that did not end the connection): the token stays here, the owner connects again.
   */
  private misbound(source: OAuthSource): AuthorizationNeeded {
    log.warn("upstream token withheld: its resource does not cover the source's URL", { source_id: source.id });
    return { state: "needs_authorization", scope: undefined };
  }

  /**
   * Replaces the tokens of the row `seen`, once across isolates: the caller that holds the gate
   * refreshes; every other waits for it and takes what it stored. Whoever gets the gate reads the
   * row again first — tokens that changed meanwhile (another caller refreshed, or the owner
   * connected again) are the answer, and their refresh token is not spent twice. A refresh that
   * failed for now since this call read the row (the row says so) is this call's answer too: the
   * callers that waited for it do not try a server that just failed, one after another.
   */
  private async refreshOnce(
    source: OAuthSource,
    seen: repo.AuthorizationRow,
    afterUnauthorized: boolean,
  ): Promise<UpstreamBearer | AuthorizationNeeded> {
    for (let round = 0; round < REFRESH_GATE_ROUNDS; round++) {
      const turn = await this.ctx.deps.refreshGate.begin(source.userId, source.id);
      try {
        const row = await repo.getAuthorization(this.ctx.deps.db, source.userId, source.id);
        if (!row || row.status !== "connected" || row.tokens === null) return neededFor(row);
        if (row.tokens !== seen.tokens) return this.bound(source, row, (await this.ctx.state.open(row)).tokens!.access_token);
        const deferred =
          row.updatedAt !== seen.updatedAt ? (pendingDeferral(row, this.ctx.now()) ?? readDeferral(row.lastError)) : undefined;
        if (deferred) return this.deferred(source, row, await this.ctx.state.open(row), deferred, afterUnauthorized);
        // `reread` with the tokens unchanged: the holder's lease ran out without an answer; ask again.
        if (turn.kind === "refresh") return await this.refresh(source, row, await this.ctx.state.open(row), afterUnauthorized);
      } finally {
        if (turn.kind === "refresh") await turn.end();
      }
    }
    throw new AppError("unavailable", `Renewing the connection to source ${source.id} is taking too long; call again shortly`);
  }

  private async refresh(
    source: OAuthSource,
    row: repo.AuthorizationRow,
    opened: OAuthState,
    afterUnauthorized: boolean,
  ): Promise<UpstreamBearer | AuthorizationNeeded> {
    if (!opened.tokens?.refresh_token) return this.refused(source, row, "no refresh token");
    const provider = new GatewayOAuthClient(opened, this.ctx.urls(row.redirectUri), { now: this.ctx.now });
    // Within the gate's lease: a refresh still running when the lease ran out could race the next holder's.
    const exchange = new RefreshExchange(this.ctx.fetchFn, this.ctx.refreshBudgetMs);
    let thrown: unknown;
    let refreshed = false;
    try {
      // With a refresh token and no code, the SDK's auth() refreshes.
      refreshed =
        (await runOAuth(provider, { serverUrl: source.mcpServerUrl, fetchFn: exchange.fetch })) === "AUTHORIZED" && provider.tokensChanged;
    } catch (error) {
      thrown = error;
    }
    if (!refreshed) {
      const failure = exchange.failure(thrown);
      if (failure.kind === "refused") return this.refused(source, row, failure.reason);
      // Only onto the tokens this refresh started from: a connection made meanwhile is not marked.
      // On the context's clock: the Retry-After is waited out from this instant, read by that clock.
      const at = this.ctx.now();
      await repo.updateWhileTokensAre(this.ctx.deps.db, source.userId, source.id, row.tokens!, {
        lastError: deferralNote(failure),
        refreshRetryAt: refreshRetryAt(failure, at),
        updatedAt: new Date(at).toISOString(),
      });
      log.warn("upstream token refresh deferred", { source_id: source.id, reason: failure.reason });
      return this.deferred(source, row, opened, failure, afterUnauthorized);
    }
    const { db, audit } = this.ctx.deps;
    const patch = await this.ctx.state.patch(source.userId, source.id, opened, provider);
    const saved = await repo.updateWhileTokensAre(db, source.userId, source.id, row.tokens!, {
      ...patch,
      refreshedAt: nowIso(),
      lastError: null,
      refreshRetryAt: null,
    });
    // The tokens changed while this refresh ran (the owner connected again or disconnected, or a
    // refresh ran ungated while the gate was unreachable): what is stored now is the answer.
    if (!saved) return this.currentAnswer(source);
    audit.record({
      userId: source.userId,
      sourceId: source.id,
      action: "refreshed",
      scope: opened.tokens?.scope ?? null,
      identification: null,
    });
    return this.bound(source, row, opened.tokens!.access_token);
  }

  /**
   * The grant is dead: the tokens go and the owner is asked to connect again — only the tokens this
   * refresh started from. A connection the owner made while it ran is theirs to keep, and answers.
   */
  private async refused(source: OAuthSource, row: repo.AuthorizationRow, reason: string): Promise<UpstreamBearer | AuthorizationNeeded> {
    const { db, audit } = this.ctx.deps;
    const ended = await repo.updateWhileTokensAre(db, source.userId, source.id, row.tokens!, {
      status: "authorization_expired",
      tokens: null,
      tokenExpiresAt: null,
      lastError: `refresh: ${reason}`,
      refreshRetryAt: null,
      updatedAt: nowIso(),
    });
    if (!ended) return this.currentAnswer(source);
    audit.record({ userId: source.userId, sourceId: source.id, action: "refresh_failed", scope: null, identification: null });
    return { state: "authorization_expired", scope: row.grantedScope ?? undefined };
  }

  /**
   * The answer once a refresh's outcome could not be written because the tokens changed while it
   * ran: the row as it is now — its token, or what to ask the owner for (needs_authorization after
   * a disconnect, with the row's current scope), never the stale row's state.
   */
  private async currentAnswer(source: OAuthSource): Promise<UpstreamBearer | AuthorizationNeeded> {
    const current = await repo.getAuthorization(this.ctx.deps.db, source.userId, source.id);
    if (!current || current.status !== "connected" || current.tokens === null) return neededFor(current);
    return this.bound(source, current, (await this.ctx.state.open(current)).tokens!.access_token);
  }

  /**
   * The refresh failed for now and the tokens are kept: an access token that has not expired yet
   * (it was being renewed ahead of time) still serves this call; otherwise the call is to be made again.
   */
  private deferred(
    source: OAuthSource,
    row: repo.AuthorizationRow,
    opened: OAuthState,
    failure: TransientFailure,
    afterUnauthorized: boolean,
  ): UpstreamBearer | AuthorizationNeeded {
    const unexpired = opened.expiresAt !== null && opened.expiresAt > this.ctx.now();
    if (unexpired && !afterUnauthorized && opened.tokens) return this.bound(source, row, opened.tokens.access_token);
    throw deferredRefreshError(source.id, row.authorizationServer, failure);
  }
}

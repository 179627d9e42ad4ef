/**
 * Each user's OAuth connection to their OAuth-protected sources: the gateway as an MCP client
 * signing in to upstream servers (the MCP authorization spec, client side), on the SDK's `auth()`.
 *
 * - Discovery (`learnProtection`): an upstream that answers 401 and publishes Protected Resource
 *   Metadata is recorded with its authorization server and scopes, state needs_authorization.
 * - Connecting (`start` / `complete`): authorization code + PKCE S256 + RFC 8707 `resource`,
 *   identified by mcp-edge's Client ID Metadata Document, else Dynamic Client Registration, else a
 *   client id the user gave. The flow is single use, expires, and is bound to the user, the source
 *   and (routes) the browser that opened its link.
 * - Calls (`bearer`): the owner's access token, refreshed before expiry or after a 401 — one
 *   refresh at a time per (user, source) across isolates (refresh-gate.ts); a refused refresh
 *   leaves the source authorization_expired. Only ever the token of the source's owner.
 * - Disconnect and delete revoke the tokens upstream (RFC 7009) when the server offers revocation.
 *
 * Tokens, client secrets, PKCE verifiers and authorization URLs are sealed at rest
 * (gateway/secrets.ts, bound to the owner and the source) and never returned, logged or audited.
 */
import { runOAuth } from "../mcp-client/oauth";
import { hashToken, randomSecret } from "../auth/tokens";
import { nowIso } from "../lib/clock";
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { privateUpstreamsAllowed } from "../lib/url-safety";
import type { SelfRoutedFetch } from "../mcp-client/self-routed-fetch";
import { secretBox } from "../gateway/secrets";
import type { AuthorizationNeeded, OAuthSource, UpstreamAuthorizer } from "../gateway/upstream-authorization";
import { getSource } from "../gateway/sources.repo";
import * as repo from "./authorizations.repo";
import { gatewayClientUrls, type GatewayClientUrls, UPSTREAM_CONNECT_PATH, UPSTREAM_START_PATH } from "./gateway-client";
import { type ClientIdentification, GatewayOAuthClient, type OAuthState } from "./gateway-oauth-client";
import { type OAuthFetch, oauthFetch } from "./oauth-fetch";
import { describeOAuthFailure, discoverProtection } from "./protection";
import { revokeTokens } from "./revocation";
import { REFRESH_BUDGET_MS, type RefreshGate } from "./refresh-gate";
import { type FlowSecrets, SealedState, storableDiscovery } from "./sealed-state";
import type { UpstreamOAuthAudit } from "./upstream-oauth-audit";

/** How long a started authorization may take (the user signs in and consents meanwhile). */
export const FLOW_TTL_MS = 10 * 60 * 1000;
/** An access token this close to expiry is refreshed before a call rather than after its 401. */
export const REFRESH_MARGIN_MS = 60 * 1000;

export interface StartOptions {
  scope?: string | undefined;
  returnTo: "console" | "page";
  /** A client registered by hand at the upstream's authorization server. */
  client?: { clientId: string; clientSecret?: string | undefined } | undefined;
}

export interface StartedFlow {
  /** mcp-edge's one-time start link (it binds the browser, then redirects to the authorization server). */
  startUrl: string;
  expiresAt: string;
  scope: string | undefined;
  authorizationServer: string | null;
}

export interface UpstreamAuthDeps {
  db: Db;
  env: Pick<Env, "SOURCE_SECRETS_KEY" | "ALLOW_PRIVATE_UPSTREAMS" | "GATEWAY_CLIENT_METADATA_URL">;
  /** SELF routing for the Worker's own origin, the network otherwise. */
  fetch: SelfRoutedFetch;
  /** The Worker's public origin (redirect URI, metadata document, links); undefined where none is known (a cron without SELF_ORIGIN). */
  origin: string | undefined;
  audit: UpstreamOAuthAudit;
  /** Lets one caller at a time refresh a (user, source)'s tokens, across isolates. */
  refreshGate: RefreshGate;
  now?: () => number;
}

/** Rounds of waiting at the refresh gate before giving up (each ends when a holder ends or its lease runs out). */
const REFRESH_GATE_ROUNDS = 3;

export class UpstreamAuthorizations implements UpstreamAuthorizer {
  private readonly state: SealedState;
  private readonly fetchFn: OAuthFetch;
  private readonly now: () => number;

  constructor(private readonly deps: UpstreamAuthDeps) {
    this.state = new SealedState(secretBox(deps.env.SOURCE_SECRETS_KEY));
    this.fetchFn = oauthFetch(deps.fetch, privateUpstreamsAllowed(deps.env));
    this.now = deps.now ?? Date.now;
  }

  private urls(redirectUri?: string | null): GatewayClientUrls {
    const origin = this.deps.origin ?? (redirectUri ? new URL(redirectUri).origin : undefined);
    if (!origin) throw new AppError("unavailable", "Connecting sources needs the Worker's public origin: set SELF_ORIGIN");
    return gatewayClientUrls(origin, this.deps.env);
  }

  /**
   * After a discovery the upstream refused with 401: records its protection (needs_authorization)
   * when it is an MCP-authorization resource (protection.ts); false when it is not.
   */
  async learnProtection(source: OAuthSource): Promise<boolean> {
    try {
      const found = await discoverProtection(source.mcpServerUrl, this.fetchFn);
      if (!found) return false;
      const { discovery, ...facts } = found;
      await repo.recordProtection(this.deps.db, source.userId, source.id, { ...facts, discoveryState: storableDiscovery(discovery) }, nowIso());
      return true;
    } catch (error) {
      log.warn("upstream oauth discovery failed", { source_id: source.id, error: describeOAuthFailure(error) });
      return false;
    }
  }

  private async owned(userId: number, sourceId: number): Promise<repo.AuthorizationRow> {
    const row = await repo.getAuthorization(this.deps.db, userId, sourceId);
    // A foreign source's id gets the same answer as one without OAuth: nothing about it is revealed.
    if (!row) throw new AppError("not_found", `Source ${sourceId} not found, or its upstream asked for no authorization at the last discovery`);
    return row;
  }

  /**
   * Starts connecting the user's account: runs the SDK's `auth()` as far as the authorization URL
   * (registering mcp-edge at the server first when it takes no metadata document) and keeps the
   * flow for the callback. Returns mcp-edge's start link, never the upstream's URL itself: the
   * start link is what binds the flow to a browser of the signed-in user.
   */
  async start(userId: number, source: OAuthSource, options: StartOptions): Promise<StartedFlow> {
    const row = await this.owned(userId, source.id);
    const urls = this.urls();
    const opened = await this.state.open(row);
    if (options.client) {
      const issuer = row.authorizationServer ?? undefined;
      opened.client = {
        client_id: options.client.clientId,
        ...(options.client.clientSecret ? { client_secret: options.client.clientSecret } : {}),
        ...(issuer ? { issuer } : {}),
      };
      opened.identification = "manual";
    }
    // A dynamically registered client may be limited to the scopes it registered with: asking for
    // more (a step-up) registers anew, with the wider scope.
    const client = opened.client;
    const registeredScope = opened.identification === "dynamic_registration" && client && "scope" in client && typeof client.scope === "string" ? client.scope : undefined;
    const registered = registeredScope === undefined ? undefined : new Set(registeredScope.split(" "));
    if (registered && options.scope?.split(" ").some((scope) => !registered.has(scope))) {
      opened.client = undefined;
      opened.identification = null;
    }
    const state = randomSecret();
    const provider = new GatewayOAuthClient(opened, urls, { state, now: this.now });
    if (options.client) provider.clientChanged = true;
    let result: string;
    try {
      result = await runOAuth(provider, {
        serverUrl: source.mcpServerUrl,
        ...(options.scope ? { scope: options.scope } : {}),
        ...(row.resourceMetadataUrl ? { resourceMetadataUrl: new URL(row.resourceMetadataUrl) } : {}),
        fetchFn: this.fetchFn,
        forceReauthorization: true,
      });
    } catch (error) {
      await repo.updateAuthorization(this.deps.db, userId, source.id, { lastError: `connect: ${describeOAuthFailure(error)}`, updatedAt: nowIso() });
      throw new AppError("upstream_error", `The upstream's authorization server refused to start connecting: ${describeOAuthFailure(error)}`, { cause: error });
    }
    if (result !== "REDIRECT" || !provider.authorizationUrl || !provider.verifier) {
      throw new AppError("upstream_error", "The upstream's authorization server gave no authorization URL");
    }
    // A new client (registered now, or given by the user) takes effect when the connection it was
    // made for completes: until then the current connection keeps its own client and tokens.
    const newClient = provider.clientChanged ? { client: opened.client, identification: opened.identification } : {};
    provider.clientChanged = false;
    const patch = await this.state.patch(userId, source.id, opened, provider);
    await repo.updateAuthorization(this.deps.db, userId, source.id, { ...patch, redirectUri: urls.redirectUri });
    const flowId = randomSecret();
    const expiresAt = new Date(this.now() + FLOW_TTL_MS).toISOString();
    const scope = provider.authorizationUrl.searchParams.get("scope") ?? undefined;
    const flowSecrets: FlowSecrets = { verifier: provider.verifier, authorizationUrl: provider.authorizationUrl.href, ...newClient };
    await repo.insertFlow(
      this.deps.db,
      {
        stateHash: await hashToken(state),
        startHash: await hashToken(flowId),
        userId,
        sourceId: source.id,
        secrets: await this.state.sealFlow(userId, source.id, flowSecrets),
        scope: scope ?? null,
        returnTo: options.returnTo,
        expiresAt,
      },
      nowIso(),
    );
    return { startUrl: `${urls.origin}${UPSTREAM_START_PATH}?flow=${flowId}`, expiresAt, scope, authorizationServer: row.authorizationServer };
  }

  /** `start` for the owner's source by id (REST, the admin tool): the REST shape of the link. */
  async connect(
    userId: number,
    sourceId: number,
    input: { scope?: string | undefined; client_id?: string | undefined; client_secret?: string | undefined; return_to: "console" | "page" },
  ): Promise<{ authorization_url: string; expires_at: string; scope: string | null; authorization_server: string | null }> {
    const source = await getSource(this.deps.db, userId, sourceId);
    if (!source) throw AppError.notFound("Source", sourceId);
    if (input.client_secret !== undefined && input.client_id === undefined) throw AppError.invalid("client_secret needs the client_id it belongs to", "client_secret");
    const flow = await this.start(userId, source, {
      scope: input.scope,
      returnTo: input.return_to,
      client: input.client_id === undefined ? undefined : { clientId: input.client_id, clientSecret: input.client_secret },
    });
    return { authorization_url: flow.startUrl, expires_at: flow.expiresAt, scope: flow.scope ?? null, authorization_server: flow.authorizationServer };
  }

  /** The connection's facts (never a token); not found for a source of another user or one without OAuth. */
  async view(userId: number, sourceId: number): Promise<AuthorizationView> {
    const view = await this.describe(userId, sourceId);
    if (!view) throw new AppError("not_found", `Source ${sourceId} not found, or it does not use OAuth`);
    return view;
  }

  /**
   * The start link was opened by `browserUserId`'s signed-in browser: binds the flow to that
   * browser (the hash of `browserSecret`, a cookie the routes set) and returns where to send it.
   * A flow of another user, an expired or already opened one is refused.
   */
  async openStart(flowId: string, browserUserId: number, browserSecret: string): Promise<{ authorizationUrl: string }> {
    const flow = flowId.length > 0 && flowId.length <= 128 ? await repo.flowByStart(this.deps.db, await hashToken(flowId), nowIso()) : undefined;
    if (!flow || flow.userId !== browserUserId) throw new AppError("not_found", "This connect link is not valid: it expired, was already used, or belongs to another account. Start connecting again.");
    if (!(await repo.bindFlow(this.deps.db, flow.stateHash, await hashToken(browserSecret)))) {
      throw new AppError("conflict", "This connect link was already opened. Start connecting again.");
    }
    const { authorizationUrl } = await this.state.openFlow(flow);
    return { authorizationUrl };
  }

  /**
   * The callback: takes the flow of `state` (once — a replay finds nothing), checks it belongs to
   * this browser and this signed-in user, and exchanges the code (the SDK checks `iss` against the
   * issuer the flow started with, RFC 9207, and sends the PKCE verifier). Returns the source connected.
   */
  async complete(callback: { state: string; code: string; iss: string | undefined; browserSecret: string | undefined; browserUserId: number | undefined }, source: (userId: number, sourceId: number) => Promise<OAuthSource>): Promise<{ userId: number; sourceId: number; returnTo: "console" | "page" }> {
    const flow = callback.state.length > 0 && callback.state.length <= 128 ? await repo.takeFlow(this.deps.db, await hashToken(callback.state)) : undefined;
    if (!flow || Date.parse(flow.expiresAt) <= this.now()) throw new AppError("not_found", "This authorization is unknown, expired or already completed. Start connecting again.");
    const boundHere = flow.browserHash !== null && callback.browserSecret !== undefined && (await hashToken(callback.browserSecret)) === flow.browserHash;
    if (!boundHere || callback.browserUserId !== flow.userId) {
      throw new AppError("forbidden", "This authorization was started in another browser or by another account; it was cancelled. Start connecting again.");
    }
    const target = await source(flow.userId, flow.sourceId);
    const row = await this.owned(flow.userId, flow.sourceId);
    const opened = await this.state.open(row);
    const kept = await this.state.openFlow(flow);
    if (kept.client) {
      opened.client = kept.client;
      opened.identification = kept.identification ?? null;
    }
    const provider = new GatewayOAuthClient(opened, this.urls(row.redirectUri), { now: this.now, verifier: kept.verifier });
    provider.clientChanged = kept.client !== undefined;
    try {
      await runOAuth(provider, { serverUrl: target.mcpServerUrl, authorizationCode: callback.code, ...(callback.iss !== undefined ? { iss: callback.iss } : {}), fetchFn: this.fetchFn });
    } catch (error) {
      await repo.updateAuthorization(this.deps.db, flow.userId, flow.sourceId, { lastError: `connect: ${describeOAuthFailure(error)}`, updatedAt: nowIso() });
      this.deps.audit.record({ userId: flow.userId, sourceId: flow.sourceId, action: "connect_failed", scope: null, identification: null });
      throw new AppError("upstream_error", `The upstream's authorization server did not complete the connection: ${describeOAuthFailure(error)}`, { cause: error });
    }
    const patch = await this.state.patch(flow.userId, flow.sourceId, opened, provider);
    const at = nowIso();
    await repo.updateAuthorization(this.deps.db, flow.userId, flow.sourceId, { ...patch, status: "connected", connectedAt: at, refreshedAt: null, lastError: null, updatedAt: at });
    this.deps.audit.record({ userId: flow.userId, sourceId: flow.sourceId, action: "connected", scope: opened.tokens?.scope ?? flow.scope, identification: opened.identification });
    return { userId: flow.userId, sourceId: flow.sourceId, returnTo: flow.returnTo };
  }

  /**
   * The owner's access token for a call of `source`, refreshed first when it expires within
   * REFRESH_MARGIN_MS, or when `afterUnauthorized` (the upstream just answered 401 with it).
   * Only the row of this owner and this source is read: no other user's token can come back.
   */
  async bearer(source: OAuthSource, afterUnauthorized = false): Promise<string | AuthorizationNeeded> {
    const row = await repo.getAuthorization(this.deps.db, source.userId, source.id);
    if (!row || row.status !== "connected" || row.tokens === null) {
      return { state: row?.status === "authorization_expired" ? "authorization_expired" : "needs_authorization", scope: row?.grantedScope ?? undefined };
    }
    const opened = await this.state.open(row);
    const fresh = opened.expiresAt === null || opened.expiresAt - this.now() > REFRESH_MARGIN_MS;
    if (fresh && !afterUnauthorized) return opened.tokens!.access_token;
    return this.refreshOnce(source, row.tokens);
  }

  /**
   * Replaces the tokens sealed as `seen`, once across isolates: the caller that holds the gate
   * refreshes; every other waits for it and takes what it stored. Whoever gets the gate reads the
   * row again first — tokens that changed meanwhile (another caller refreshed, or the owner
   * connected again) are the answer, and their refresh token is not spent twice.
   */
  private async refreshOnce(source: OAuthSource, seen: string): Promise<string | AuthorizationNeeded> {
    for (let round = 0; round < REFRESH_GATE_ROUNDS; round++) {
      const turn = await this.deps.refreshGate.begin(source.userId, source.id);
      try {
        const row = await repo.getAuthorization(this.deps.db, source.userId, source.id);
        if (!row || row.status !== "connected" || row.tokens === null) {
          return { state: row?.status === "authorization_expired" ? "authorization_expired" : "needs_authorization", scope: row?.grantedScope ?? undefined };
        }
        if (row.tokens !== seen) return (await this.state.open(row)).tokens!.access_token;
        // `reread` with the tokens unchanged: the holder's lease ran out without an answer; ask again.
        if (turn.kind === "refresh") return await this.refresh(source, row, await this.state.open(row));
      } finally {
        if (turn.kind === "refresh") await turn.end();
      }
    }
    throw new AppError("unavailable", `Renewing the connection to source ${source.id} is taking too long; call again shortly`);
  }

  private async refresh(source: OAuthSource, row: repo.AuthorizationRow, opened: OAuthState): Promise<string | AuthorizationNeeded> {
    const provider = new GatewayOAuthClient(opened, this.urls(row.redirectUri), { now: this.now });
    let failure: string | undefined;
    if (!opened.tokens?.refresh_token) failure = "no refresh token";
    else {
      try {
        // Within the gate's lease: a refresh still running when the lease ran out could race the next holder's.
        const budget = AbortSignal.timeout(REFRESH_BUDGET_MS);
        const fetchFn: OAuthFetch = (input, init) => this.fetchFn(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, budget]) : budget });
        // With a refresh token and no code, the SDK's auth() refreshes; a refused refresh (an OAuthError) is thrown.
        const result = await runOAuth(provider, { serverUrl: source.mcpServerUrl, fetchFn });
        if (result !== "AUTHORIZED" || !provider.tokensChanged) failure = "the authorization server did not refresh the token";
      } catch (error) {
        failure = describeOAuthFailure(error);
      }
    }
    if (failure !== undefined) {
      const at = nowIso();
      await repo.updateAuthorization(this.deps.db, source.userId, source.id, { status: "authorization_expired", tokens: null, tokenExpiresAt: null, lastError: `refresh: ${failure}`, updatedAt: at });
      this.deps.audit.record({ userId: source.userId, sourceId: source.id, action: "refresh_failed", scope: null, identification: null });
      return { state: "authorization_expired", scope: row.grantedScope ?? undefined };
    }
    const patch = await this.state.patch(source.userId, source.id, opened, provider);
    const saved = await repo.replaceTokens(this.deps.db, source.userId, source.id, row.tokens!, { ...patch, refreshedAt: nowIso(), lastError: null });
    if (!saved) {
      // Another isolate refreshed first: its tokens are the current ones.
      const current = await repo.getAuthorization(this.deps.db, source.userId, source.id);
      if (!current || current.status !== "connected" || current.tokens === null) return { state: "authorization_expired", scope: row.grantedScope ?? undefined };
      return (await this.state.open(current)).tokens!.access_token;
    }
    this.deps.audit.record({ userId: source.userId, sourceId: source.id, action: "refreshed", scope: opened.tokens?.scope ?? null, identification: null });
    return opened.tokens!.access_token;
  }

  connectLink(sourceId: number, scope: string | undefined): string | undefined {
    if (!this.deps.origin) return undefined;
    const params = new URLSearchParams({ source_id: String(sourceId) });
    if (scope) params.set("scope", scope);
    return `${this.deps.origin}${UPSTREAM_CONNECT_PATH}?${params}`;
  }

  /** The upstream asked for more scopes (403 insufficient_scope): the next connect asks for them. */
  async needsScope(source: OAuthSource, scope: string | undefined): Promise<AuthorizationNeeded> {
    const row = await repo.getAuthorization(this.deps.db, source.userId, source.id);
    const granted = row?.grantedScope ?? undefined;
    const union = [...new Set([...(granted ?? "").split(" "), ...(scope ?? "").split(" ")].filter((s) => s !== ""))].join(" ");
    return { state: "needs_authorization", scope: union === "" ? undefined : union };
  }

  /**
   * Disconnects the owner's account: revokes the tokens upstream when the authorization server
   * offers revocation (RFC 7009; best effort, the local copy goes either way) and forgets them.
   * `forDelete`: the source is going, its row goes with it.
   */
  async disconnect(userId: number, sourceId: number, forDelete = false): Promise<{ revoked: boolean }> {
    const row = forDelete ? await repo.getAuthorization(this.deps.db, userId, sourceId) : await this.owned(userId, sourceId);
    if (!row) return { revoked: false };
    let revoked = false;
    if (row.tokens !== null) {
      const opened = await this.state.open(row);
      revoked = await revokeTokens(opened, this.fetchFn).catch((error: unknown) => {
        log.warn("upstream token revocation failed", { source_id: sourceId, error: describeOAuthFailure(error) });
        return false;
      });
    }
    if (!forDelete) {
      await repo.updateAuthorization(this.deps.db, userId, sourceId, { status: "needs_authorization", tokens: null, tokenExpiresAt: null, grantedScope: null, refreshedAt: null, updatedAt: nowIso() });
    }
    if (row.tokens !== null) this.deps.audit.record({ userId, sourceId, action: "disconnected", scope: null, identification: null });
    return { revoked };
  }

  /** The authorization facts of the owner's source (no secrets), or undefined when it does not use OAuth. */
  async describe(userId: number, sourceId: number): Promise<AuthorizationView | undefined> {
    const row = await repo.getAuthorization(this.deps.db, userId, sourceId);
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
}

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

/**
 * Connecting a user's account at an OAuth-protected source: authorization code + PKCE S256 + RFC
 * 8707 `resource`, on the SDK's `auth()`, with mcp-edge identified by its Client ID Metadata
 * Document, else Dynamic Client Registration, else a client id the user gave. The flow is single
 * use, expires, and is bound to the user, the source, (routes) the browser that opened its link,
 * and its authorization server: its answer is taken only at the redirect URI it was sent with
 * (flow-binding.ts, decision 0047). Its PKCE verifier, authorization URL and binding are sealed
 * until the callback; `state` and the link id are kept as hashes only.
 */
import { runOAuth, type StoredOAuthClientInformation } from "../mcp-client/oauth";
import { hashToken, randomSecret } from "../auth/tokens";
import { nowIso } from "../lib/clock";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import type { OAuthSource } from "../gateway/authorization/upstream-authorization";
import * as repo from "./authorizations.repo";
import { UPSTREAM_START_PATH } from "./paths";
import { GatewayOAuthClient, type OAuthState } from "./gateway-oauth-client";
import { bindToIssuer, checkArrival, type FlowBinding, isDocumentRedirect, issuerOf, registeredFor } from "./flow-binding";
import { oauthFailureSummary } from "./oauth-failure-text";
import { describeOAuthFailure } from "./protection";
import type { FlowSecrets } from "./sealed-state";
import type { ConnectionContext } from "./connection-context";

/** How long a started authorization may take (the user signs in and consents meanwhile). */
export const FLOW_TTL_MS = 10 * 60 * 1000;

/**
 * The most connects a user may have in progress (unexpired) at once. Each one opened in a browser
 * leaves a cookie there until its callback or its expiry (connect.routes.ts), so this bounds
 * the cookies a browser collects; real use is one or two at a time. The insert itself enforces it
 * (authorizations.repo.ts#insertFlow), so starts running at once cannot exceed it.
 */
export const MAX_OPEN_FLOWS = 10;

/** The refusal of a start beyond MAX_OPEN_FLOWS: retry when the oldest open flow expires. */
function tooManyOpen(open: repo.OpenFlows, now: number): AppError {
  const retryAfterMs = open.earliestExpiry === null ? 1000 : Math.max(1000, Date.parse(open.earliestExpiry) - now);
  return new AppError(
    "rate_limited",
    `You have ${open.count} connects in progress, the most at once: finish one, or start again in ${Math.ceil(retryAfterMs / 1000)} s when the oldest expires`,
    { details: { retry_after_ms: retryAfterMs } },
  );
}

/** Refuses (read only) a user who already has MAX_OPEN_FLOWS connects in progress. */
export async function refuseTooManyOpen(ctx: ConnectionContext, userId: number): Promise<void> {
  const now = ctx.now();
  const open = await repo.openFlows(ctx.deps.db, userId, new Date(now).toISOString());
  if (open.count >= MAX_OPEN_FLOWS) throw tooManyOpen(open, now);
}

export interface StartOptions {
  scope?: string | undefined;
  returnTo: "console" | "page";
  /** A client registered by hand at the upstream's authorization server. */
  client?: { clientId: string; clientSecret?: string | undefined } | undefined;
}

/** Whether `client` was registered (DCR) for every scope of `scope`; a registration that names no scope is not limited. */
function registeredForScope(client: StoredOAuthClientInformation, scope: string | undefined): boolean {
  const registered = "scope" in client && typeof client.scope === "string" ? new Set(client.scope.split(" ")) : undefined;
  return registered === undefined || !scope?.split(" ").some((name) => !registered.has(name));
}

export interface StartedFlow {
  /** mcp-edge's one-time start link (it binds the browser, then redirects to the authorization server). */
  startUrl: string;
  expiresAt: string;
  scope: string | undefined;
  authorizationServer: string | null;
}

export class ConnectFlows {
  constructor(private readonly ctx: ConnectionContext) {}

  /**
   * Starts connecting the user's account: runs the SDK's `auth()` as far as the authorization URL
   * (registering mcp-edge at the server first when it takes no metadata document) and keeps the
   * flow for the callback. Returns mcp-edge's start link, never the upstream's URL itself: the
   * start link is what binds the flow to a browser of the signed-in user.
   */
  async start(userId: number, source: OAuthSource, options: StartOptions): Promise<StartedFlow> {
    const { db } = this.ctx.deps;
    const row = await this.ctx.owned(userId, source.id);
    // A first count, before any network work: a user at the limit is refused without discovery or
    // a registration at the authorization server. It cannot hold the limit alone — starts running
    // at once all pass it together — so the insert below counts again, in the same statement.
    await this.refuseTooManyOpen(userId);
    const opened = await this.ctx.state.open(row);
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
    if (opened.identification === "dynamic_registration" && opened.client && !registeredForScope(opened.client, options.scope)) {
      opened.client = undefined;
      opened.identification = null;
    }
    const binding = await bindToIssuer(this.ctx.urls(), opened);
    const reused = await this.reuseRegistration(userId, source.id, opened, binding, options.scope);
    this.refuseWithoutIdentification(opened, binding);
    const state = randomSecret();
    const provider = new GatewayOAuthClient(opened, binding.urls, { state, now: this.ctx.now });
    if (options.client || reused) provider.clientChanged = true;
    let result: string;
    try {
      result = await runOAuth(provider, {
        serverUrl: source.mcpServerUrl,
        ...(options.scope ? { scope: options.scope } : {}),
        ...(row.resourceMetadataUrl ? { resourceMetadataUrl: new URL(row.resourceMetadataUrl) } : {}),
        fetchFn: this.ctx.fetchFn,
        forceReauthorization: true,
      });
    } catch (error) {
      log.warn("upstream connect start failed", { source_id: source.id, error: describeOAuthFailure(error) });
      await repo.updateAuthorization(db, userId, source.id, { lastError: `connect: ${oauthFailureSummary(error)}`, updatedAt: nowIso() });
      const summary = oauthFailureSummary(error);
      throw new AppError("upstream_error", `The upstream's authorization server refused to start connecting: ${summary}`, { cause: error });
    }
    if (result !== "REDIRECT" || !provider.authorizationUrl || !provider.verifier) {
      throw new AppError("upstream_error", "The upstream's authorization server gave no authorization URL");
    }
    // A new client (registered now, or given by the user) takes effect when the connection it was
    // made for completes: until then the current connection keeps its own client and tokens.
    const newClient = provider.clientChanged ? { client: opened.client, identification: opened.identification } : {};
    provider.clientChanged = false;
    const patch = await this.ctx.state.patch(userId, source.id, opened, provider);
    const flowId = randomSecret();
    const now = this.ctx.now();
    const expiresAt = new Date(now + FLOW_TTL_MS).toISOString();
    const scope = provider.authorizationUrl.searchParams.get("scope") ?? undefined;
    const flowSecrets: FlowSecrets = {
      verifier: provider.verifier,
      authorizationUrl: provider.authorizationUrl.href,
      issuer: binding.issuer,
      redirectUri: binding.urls.redirectUri,
      ...newClient,
    };
    // The row's patch goes in with the flow or not at all: a start refused here changes nothing.
    const kept = await repo.insertFlow(
      db,
      {
        stateHash: await hashToken(state),
        startHash: await hashToken(flowId),
        userId,
        sourceId: source.id,
        secrets: await this.ctx.state.sealFlow(userId, source.id, flowSecrets),
        scope: scope ?? null,
        returnTo: options.returnTo,
        expiresAt,
      },
      { ...patch, redirectUri: binding.urls.redirectUri },
      MAX_OPEN_FLOWS,
      new Date(now).toISOString(),
    );
    if (!kept.inserted) throw tooManyOpen(kept.open, now);
    const startUrl = `${this.ctx.urls().origin}${UPSTREAM_START_PATH}?flow=${flowId}`;
    return { startUrl, expiresAt, scope, authorizationServer: row.authorizationServer };
  }

  /**
   * A start that would register mcp-edge (DCR) takes the client an unfinished connect of the same
   * user and source registered at the same server instead, when it fits (same redirect URI, its
   * scopes): starting over and over then does not multiply registrations upstream. True when one
   * was taken.
   */
  private async reuseRegistration(
    userId: number,
    sourceId: number,
    opened: OAuthState,
    binding: FlowBinding,
    scope: string | undefined,
  ): Promise<boolean> {
    if (opened.client !== undefined || binding.urls.clientMetadataUrl !== undefined) return false;
    for (const flow of await repo.unexpiredFlowsOf(this.ctx.deps.db, userId, sourceId, new Date(this.ctx.now()).toISOString())) {
      const kept = await this.ctx.state.openFlow(flow);
      const client = kept.client;
      if (!client || kept.identification !== "dynamic_registration" || kept.issuer !== binding.issuer) continue;
      if (!registeredFor(client, binding.urls.redirectUri) || !registeredForScope(client, scope)) continue;
      opened.client = client;
      opened.identification = "dynamic_registration";
      return true;
    }
    return false;
  }

  /** No client, no metadata document to offer and no registration endpoint: say what to do instead of the SDK's error. */
  private refuseWithoutIdentification(opened: OAuthState, binding: FlowBinding): void {
    const metadata = opened.discovery?.authorizationServerMetadata;
    if (opened.client !== undefined || binding.urls.clientMetadataUrl !== undefined || (metadata && metadata.registration_endpoint)) return;
    throw AppError.invalid(
      `The authorization server ${binding.issuer} takes no dynamic client registration, and mcp-edge offers its metadata ` +
        `document only to a server that advertises RFC 9207 iss: register a client there with the redirect URI ` +
        `${binding.urls.redirectUri} and connect with its client_id`,
      "client_id",
    );
  }

  private refuseTooManyOpen(userId: number): Promise<void> {
    return refuseTooManyOpen(this.ctx, userId);
  }

  /** `start` for the owner's source by id (REST, the admin tool): the REST shape of the link. */
  async connect(
    userId: number,
    sourceId: number,
    input: {
      scope?: string | undefined;
      client_id?: string | undefined;
      client_secret?: string | undefined;
      return_to: "console" | "page";
    },
  ): Promise<{ authorization_url: string; expires_at: string; scope: string | null; authorization_server: string | null }> {
    const source = await this.ctx.source(userId, sourceId);
    if (input.client_secret !== undefined && input.client_id === undefined)
      throw AppError.invalid("client_secret needs the client_id it belongs to", "client_secret");
    const flow = await this.start(userId, source, {
      scope: input.scope,
      returnTo: input.return_to,
      client: input.client_id === undefined ? undefined : { clientId: input.client_id, clientSecret: input.client_secret },
    });
    return {
      authorization_url: flow.startUrl,
      expires_at: flow.expiresAt,
      scope: flow.scope ?? null,
      authorization_server: flow.authorizationServer,
    };
  }

  /**
   * The start link was opened by `browserUserId`'s signed-in browser: binds the flow to that
   * browser (the hash of `browserSecret`, a cookie the routes set) and returns where to send it.
   * A flow of another user, an expired or already opened one is refused.
   */
  async openStart(flowId: string, browserUserId: number, browserSecret: string): Promise<{ authorizationUrl: string }> {
    const { db } = this.ctx.deps;
    const flow = flowId.length > 0 && flowId.length <= 128 ? await repo.flowByStart(db, await hashToken(flowId), nowIso()) : undefined;
    if (!flow || flow.userId !== browserUserId)
      throw new AppError(
        "not_found",
        "This connect link is not valid: it expired, was already used, or belongs to another account. Start connecting again.",
      );
    if (!(await repo.bindFlow(db, flow.stateHash, await hashToken(browserSecret)))) {
      throw new AppError("conflict", "This connect link was already opened. Start connecting again.");
    }
    const { authorizationUrl } = await this.ctx.state.openFlow(flow);
    return { authorizationUrl };
  }

  /**
   * The callback: takes the flow of `state` (once — a replay finds nothing), checks it belongs to
   * this browser and this signed-in user and came back where its authorization server was to send
   * it (`path`, flow-binding.ts), and exchanges the code (the SDK checks `iss` against the issuer
   * the flow started with, RFC 9207, and sends the PKCE verifier). Returns the source connected.
   */
  async complete(callback: {
    state: string;
    code: string;
    iss: string | undefined;
    path: string;
    browserSecret: string | undefined;
    browserUserId: number | undefined;
  }): Promise<{ userId: number; sourceId: number; returnTo: "console" | "page" }> {
    const { db, audit } = this.ctx.deps;
    const flow =
      callback.state.length > 0 && callback.state.length <= 128 ? await repo.takeFlow(db, await hashToken(callback.state)) : undefined;
    if (!flow || Date.parse(flow.expiresAt) <= this.ctx.now())
      throw new AppError("not_found", "This authorization is unknown, expired or already completed. Start connecting again.");
    const boundHere =
      flow.browserHash !== null && callback.browserSecret !== undefined && (await hashToken(callback.browserSecret)) === flow.browserHash;
    if (!boundHere || callback.browserUserId !== flow.userId) {
      throw new AppError(
        "forbidden",
        "This authorization was started in another browser or by another account; it was cancelled. Start connecting again.",
      );
    }
    const target = await this.ctx.source(flow.userId, flow.sourceId);
    const row = await this.ctx.owned(flow.userId, flow.sourceId);
    const opened = await this.ctx.state.open(row);
    const kept = await this.ctx.state.openFlow(flow);
    const documentUrls = this.ctx.urls(row.redirectUri);
    const failed = async (summary: string) => {
      await repo.updateAuthorization(db, flow.userId, flow.sourceId, { lastError: `connect: ${summary}`, updatedAt: nowIso() });
      audit.record({ userId: flow.userId, sourceId: flow.sourceId, action: "connect_failed", scope: null, identification: null });
    };
    try {
      checkArrival(kept, { path: callback.path, iss: callback.iss }, issuerOf(opened.discovery));
    } catch (error) {
      // Nothing is sent on: not the code, not the verifier.
      log.warn("upstream connect answer refused: not where its flow was sent", { source_id: flow.sourceId });
      await failed("an answer arrived where this connect's authorization server could not have sent it (mix-up refused)");
      throw error;
    }
    if (kept.client) {
      opened.client = kept.client;
      opened.identification = kept.identification ?? null;
    }
    // The document is offered only on its own redirect URI (flow-binding.ts): the exchange names the same.
    const viaDocument = isDocumentRedirect(kept.redirectUri!);
    const clientMetadataUrl = viaDocument ? documentUrls.clientMetadataUrl : undefined;
    const urls = { ...documentUrls, redirectUri: kept.redirectUri!, clientMetadataUrl };
    const provider = new GatewayOAuthClient(opened, urls, { now: this.ctx.now, verifier: kept.verifier });
    provider.clientChanged = kept.client !== undefined;
    try {
      await runOAuth(provider, {
        serverUrl: target.mcpServerUrl,
        authorizationCode: callback.code,
        ...(callback.iss !== undefined ? { iss: callback.iss } : {}),
        fetchFn: this.ctx.fetchFn,
      });
    } catch (error) {
      log.warn("upstream connect exchange failed", { source_id: flow.sourceId, error: describeOAuthFailure(error) });
      await failed(oauthFailureSummary(error));
      const summary = oauthFailureSummary(error);
      throw new AppError("upstream_error", `The upstream's authorization server did not complete the connection: ${summary}`, {
        cause: error,
      });
    }
    const patch = await this.ctx.state.patch(flow.userId, flow.sourceId, opened, provider);
    const at = nowIso();
    // The tokens are bound to the resource they were asked for: the only URLs calls send them to.
    const resource = provider.resource ?? row.resource;
    await repo.updateAuthorization(db, flow.userId, flow.sourceId, {
      ...patch,
      resource,
      status: "connected",
      connectedAt: at,
      refreshedAt: null,
      lastError: null,
      refreshRetryAt: null,
      updatedAt: at,
    });
    audit.record({
      userId: flow.userId,
      sourceId: flow.sourceId,
      action: "connected",
      scope: opened.tokens?.scope ?? flow.scope,
      identification: opened.identification,
    });
    return { userId: flow.userId, sourceId: flow.sourceId, returnTo: flow.returnTo };
  }
}

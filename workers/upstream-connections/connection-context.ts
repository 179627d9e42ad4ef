/**
 * What every part of upstream connections works with: its dependencies, the sealed state between
 * D1 and the SDK (sealed-state.ts), the guarded OAuth fetch (oauth-fetch.ts), the Worker's own
 * URLs, and the owner's authorization row.
 */
import type { ConnectableSource, GatewayForConnections } from "../gateway/authorization/upstream-authorization";
import { AppError } from "../lib/errors";
import type { Db } from "../lib/db";
import { privateUpstreamsAllowed } from "../lib/url-safety";
import * as repo from "./authorizations.repo";
import { gatewayClientUrls, type GatewayClientUrls } from "./gateway-client";
import { type OAuthFetch, oauthFetch } from "./oauth-fetch";
import { REFRESH_BUDGET_MS, type RefreshGate } from "./refresh-gate";
import { type OpenedTokens, SealedState } from "./sealed-state";
import type { ConnectionAudit } from "./connection-audit";

export interface ConnectionDeps {
  db: Db;
  env: Pick<Env, "ALLOW_PRIVATE_UPSTREAMS" | "GATEWAY_CLIENT_METADATA_URL">;
  /** The sources and the secrets box, through the gateway's port. */
  gateway: GatewayForConnections;
  /** Upstream tokens the isolate opened from their sealed text. */
  openedTokens: OpenedTokens;
  /** The network (a test may bring its own). */
  fetch: OAuthFetch;
  /** The Worker's public origin (redirect URI, metadata document, links); undefined where none is known (a cron without SELF_ORIGIN). */
  origin: string | undefined;
  audit: ConnectionAudit;
  /** Lets one caller at a time refresh a (user, source)'s tokens, across isolates. */
  refreshGate: RefreshGate;
  now?: () => number;
  /** How long one token refresh may take in all (REFRESH_BUDGET_MS, below the gate's lease); tests shorten it. */
  refreshBudgetMs?: number;
}

export class ConnectionContext {
  readonly state: SealedState;
  readonly fetchFn: OAuthFetch;
  readonly now: () => number;
  readonly refreshBudgetMs: number;

  constructor(readonly deps: ConnectionDeps) {
    this.state = new SealedState(deps.gateway.secrets, deps.openedTokens);
    this.fetchFn = oauthFetch(deps.fetch, privateUpstreamsAllowed(deps.env));
    this.now = deps.now ?? Date.now;
    this.refreshBudgetMs = Math.min(deps.refreshBudgetMs ?? REFRESH_BUDGET_MS, REFRESH_BUDGET_MS);
  }

  /** The Worker's redirect URI, metadata document and origin; a flow's own redirect URI stands in for an unknown origin. */
  urls(redirectUri?: string | null): GatewayClientUrls {
    const origin = this.deps.origin ?? (redirectUri ? new URL(redirectUri).origin : undefined);
    if (!origin) throw new AppError("unavailable", "Connecting sources needs the Worker's public origin: set SELF_ORIGIN");
    return gatewayClientUrls(origin, this.deps.env);
  }

  /** The owner's source; not found for an unknown id or another user's source. */
  async source(userId: number, sourceId: number): Promise<ConnectableSource> {
    const source = await this.deps.gateway.source(userId, sourceId);
    if (!source) throw AppError.notFound("Source", sourceId);
    return source;
  }

  /** The owner's authorization row of the source; not found for a foreign source's id or one without OAuth. */
  async owned(userId: number, sourceId: number): Promise<repo.AuthorizationRow> {
    const row = await repo.getAuthorization(this.deps.db, userId, sourceId);
    // A foreign source's id gets the same answer as one without OAuth: nothing about it is revealed.
    if (!row)
      throw new AppError("not_found", `Source ${sourceId} not found, or its upstream asked for no authorization at the last discovery`);
    return row;
  }
}

/**
 * The connect link an `authorization_required` call carries (`/oauth/upstream/connect?source_id=…`):
 * a GET anyone can make the owner's browser open, so opening it starts nothing — it shows what would
 * be connected (connect-page.ts) — and only the owner confirming starts a flow (connect-flow.service.ts),
 * asking for the scopes the source's upstream named, never scopes a link carries.
 */
import type { OAuthSource } from "../gateway/authorization/upstream-authorization";
import type * as repo from "./authorizations.repo";
import { type ConnectFlows, refuseTooManyOpen, type StartedFlow } from "./connect-flow.service";
import { bindingWarnings, issuerOf } from "./flow-binding";
import { issuerRedirectUri } from "./gateway-client";
import { UPSTREAM_CONNECT_PATH } from "./paths";
import { discoveryOf } from "./sealed-state";
import type { ConnectionContext } from "./connection-context";

/** What the connect link's page shows before anything starts (no flow, no registration yet). */
export interface ConnectConfirmation {
  authorizationServer: string | null;
  /** The scopes the connect asks for: learnedScope. */
  scope: string | undefined;
  warnings: string[];
  /** Where confirming sends the browser (the authorization endpoint's origin): the page's form-action. */
  authorizationOrigin: string | undefined;
}

/**
 * The scopes a connect from a link asks for: what the source's upstream named — its metadata's
 * scopes_supported and the scopes a 403 challenge asked for (call-tokens.service.ts#needsScope) —
 * and what was granted before. Never what the link says: anyone can write a link.
 */
function learnedScope(row: repo.AuthorizationRow): string | undefined {
  const names = new Set([...row.scopesSupported, ...(row.grantedScope ?? "").split(" ")].filter((name) => name !== ""));
  return names.size === 0 ? undefined : [...names].join(" ");
}

export class ConnectLinks {
  constructor(
    private readonly ctx: ConnectionContext,
    private readonly flows: ConnectFlows,
  ) {}

  /** The link itself: opened in the owner's signed-in browser, it asks to confirm. Undefined without a known origin. */
  connectLink(sourceId: number): string | undefined {
    if (!this.ctx.deps.origin) return undefined;
    return `${this.ctx.deps.origin}${UPSTREAM_CONNECT_PATH}?${new URLSearchParams({ source_id: String(sourceId) })}`;
  }

  /**
   * What the link's page shows: nothing is started, registered or written until the owner
   * confirms. Refused early, like a start, when the owner already has the most connects in progress.
   */
  async confirmation(userId: number, sourceId: number): Promise<ConnectConfirmation> {
    const row = await this.ctx.owned(userId, sourceId);
    await refuseTooManyOpen(this.ctx, userId);
    const discovery = discoveryOf(row);
    const issuer = issuerOf(discovery);
    const endpoint = discovery?.authorizationServerMetadata?.authorization_endpoint;
    return {
      authorizationServer: row.authorizationServer,
      scope: learnedScope(row),
      warnings: bindingWarnings(discovery, issuer ? await issuerRedirectUri(this.ctx.urls().origin, issuer) : undefined),
      authorizationOrigin: endpoint ? new URL(endpoint).origin : undefined,
    };
  }

  /** The owner confirmed the page: a flow asking for the scopes the source's upstream named. */
  async startConfirmed(userId: number, source: OAuthSource, returnTo: "console" | "page"): Promise<StartedFlow> {
    const row = await this.ctx.owned(userId, source.id);
    return this.flows.start(userId, source, { scope: learnedScope(row), returnTo });
  }
}

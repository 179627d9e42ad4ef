/**
 * Upstream connections: each user's connection to their OAuth-protected sources — the gateway as
 * an MCP client signing in to an upstream's authorization server for that user (the MCP
 * authorization spec, client side), on the SDK's `auth()`. This is the one object the rest of the
 * Worker holds (`Services.upstreamConnections`; to the gateway, its `UpstreamAuthorizer` port), and
 * it reaches the gateway only through that port (gateway/authorization/upstream-authorization.ts).
 * Each job is in its own file:
 *
 * - connect-flow.service.ts: start, the start link, the callback (PKCE, `resource`, CIMD/DCR/manual client,
 *   bound to its authorization server: flow-binding.ts);
 * - connect-link.service.ts: the connect link a call carries, which asks before it starts;
 * - call-tokens.service.ts: the owner's token per call, refreshed once at a time (refresh-gate.ts);
 * - connection-state.service.ts: protection learned at discovery, the facts shown, disconnect, revocation,
 *   and the end of a connection when its source's URL changes.
 *
 * Tokens, client secrets, PKCE verifiers and authorization URLs are sealed at rest
 * (sealed-state.ts in the gateway's box for source secrets, bound to the owner and the source) and
 * never returned, logged or audited.
 */
import type {
  AuthorizationNeeded,
  ConnectableSource,
  OAuthSource,
  UpstreamAuthorizer,
  UpstreamBearer,
} from "../gateway/authorization/upstream-authorization";
import { CallTokens } from "./call-tokens.service";
import { ConnectFlows, type StartOptions, type StartedFlow } from "./connect-flow.service";
import { type ConnectConfirmation, ConnectLinks } from "./connect-link.service";
import { type AuthorizationView, ConnectionState } from "./connection-state.service";
import { ConnectionContext, type ConnectionDeps } from "./connection-context";

export class UpstreamConnections implements UpstreamAuthorizer {
  private readonly flows: ConnectFlows;
  private readonly links: ConnectLinks;
  private readonly tokens: CallTokens;
  private readonly connections: ConnectionState;
  private readonly context: ConnectionContext;

  constructor(deps: ConnectionDeps) {
    const context = new ConnectionContext(deps);
    this.context = context;
    this.flows = new ConnectFlows(context);
    this.links = new ConnectLinks(context, this.flows);
    this.tokens = new CallTokens(context);
    this.connections = new ConnectionState(context);
  }

  /** The owner's source, as the connect pages show it; not found for an unknown id or another user's source. */
  source(userId: number, sourceId: number): Promise<ConnectableSource> {
    return this.context.source(userId, sourceId);
  }

  learnProtection(source: OAuthSource): Promise<boolean> {
    return this.connections.learnProtection(source);
  }

  start(userId: number, source: OAuthSource, options: StartOptions): Promise<StartedFlow> {
    return this.flows.start(userId, source, options);
  }

  connect(...args: Parameters<ConnectFlows["connect"]>): ReturnType<ConnectFlows["connect"]> {
    return this.flows.connect(...args);
  }

  confirmation(userId: number, sourceId: number): Promise<ConnectConfirmation> {
    return this.links.confirmation(userId, sourceId);
  }

  startConfirmed(userId: number, source: OAuthSource, returnTo: "console" | "page"): Promise<StartedFlow> {
    return this.links.startConfirmed(userId, source, returnTo);
  }

  openStart(flowId: string, browserUserId: number, browserSecret: string): Promise<{ authorizationUrl: string }> {
    return this.flows.openStart(flowId, browserUserId, browserSecret);
  }

  complete(...args: Parameters<ConnectFlows["complete"]>): ReturnType<ConnectFlows["complete"]> {
    return this.flows.complete(...args);
  }

  connectLink(sourceId: number): string | undefined {
    return this.links.connectLink(sourceId);
  }

  bearer(source: OAuthSource, afterUnauthorized = false): Promise<UpstreamBearer | AuthorizationNeeded> {
    return this.tokens.bearer(source, afterUnauthorized);
  }

  needsScope(source: OAuthSource, scope: string | undefined): Promise<AuthorizationNeeded> {
    return this.tokens.needsScope(source, scope);
  }

  view(userId: number, sourceId: number): Promise<AuthorizationView> {
    return this.connections.view(userId, sourceId);
  }

  describe(userId: number, sourceId: number): Promise<AuthorizationView | undefined> {
    return this.connections.describe(userId, sourceId);
  }

  disconnect(userId: number, sourceId: number, forDelete = false): Promise<{ revoked: boolean }> {
    return this.connections.disconnect(userId, sourceId, forDelete);
  }

  endForUrlChange(userId: number, sourceId: number): Promise<boolean> {
    return this.connections.endForUrlChange(userId, sourceId);
  }
}

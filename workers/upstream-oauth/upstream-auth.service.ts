/**
 * Each user's OAuth connection to their OAuth-protected sources: the gateway as an MCP client
 * signing in to upstream servers (the MCP authorization spec, client side), on the SDK's `auth()`.
 * This is the one object the rest of the Worker holds (`Services.upstreamAuth`, the gateway's
 * `UpstreamAuthorizer` port); each job is in its own file:
 *
 * - connect-flow.service.ts: start, the start link, the callback (PKCE, `resource`, CIMD/DCR/manual client);
 * - call-tokens.service.ts: the owner's token per call, refreshed once at a time (refresh-gate.ts);
 * - connection-state.service.ts: protection learned at discovery, the facts shown, disconnect and revocation.
 *
 * Tokens, client secrets, PKCE verifiers and authorization URLs are sealed at rest
 * (sealed-state.ts over gateway/secrets.ts, bound to the owner and the source) and never
 * returned, logged or audited.
 */
import type { AuthorizationNeeded, OAuthSource, UpstreamAuthorizer } from "../gateway/upstream-authorization";
import { CallTokens } from "./call-tokens.service";
import { ConnectFlows, type StartOptions, type StartedFlow } from "./connect-flow.service";
import { type AuthorizationView, ConnectionState } from "./connection-state.service";
import { UpstreamAuthContext, type UpstreamAuthDeps } from "./upstream-auth-context";

export class UpstreamAuthorizations implements UpstreamAuthorizer {
  private readonly flows: ConnectFlows;
  private readonly tokens: CallTokens;
  private readonly connections: ConnectionState;

  constructor(deps: UpstreamAuthDeps) {
    const context = new UpstreamAuthContext(deps);
    this.flows = new ConnectFlows(context);
    this.tokens = new CallTokens(context);
    this.connections = new ConnectionState(context);
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

  openStart(flowId: string, browserUserId: number, browserSecret: string): Promise<{ authorizationUrl: string }> {
    return this.flows.openStart(flowId, browserUserId, browserSecret);
  }

  complete(...args: Parameters<ConnectFlows["complete"]>): ReturnType<ConnectFlows["complete"]> {
    return this.flows.complete(...args);
  }

  connectLink(sourceId: number, scope: string | undefined): string | undefined {
    return this.flows.connectLink(sourceId, scope);
  }

  bearer(source: OAuthSource, afterUnauthorized = false): Promise<string | AuthorizationNeeded> {
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
}

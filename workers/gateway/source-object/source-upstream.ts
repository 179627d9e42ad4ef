/**
 * The side of a source's object that talks to the upstream: its connections, discovery, sessionful
 * calls and the re-list after list_changed. The object imports it on its first discovery or call:
 * every isolate of the Worker evaluates the object's class when it starts, and few of them ever
 * talk to an upstream (decision 0034); the breaker and the call window need none of it.
 */
import type { FetchLike, McpClientConnection } from "../../mcp-client/connect";
import type {
  DiscoveryOutcome,
  UpstreamCall,
  UpstreamCallOutcome,
  UpstreamConfig,
  UpstreamForward,
  UpstreamForwardOutcome,
} from "../sources/upstream.types";
import { discoverUpstream } from "./discover-upstream";
import { ListChangedRefresh } from "./list-changed";
import { callSessionful, forwardSessionful } from "./sessionful-call";
import type { SourceBreaker } from "./source-breaker";
import type { SourceStorage } from "./source-storage";
import { UpstreamSessions } from "./upstream-sessions";

export interface SourceUpstreamDeps {
  storage: SourceStorage;
  breaker: SourceBreaker;
  env: Env;
  /** The object's waitUntil: a list_changed refresh runs past the notification that started it. */
  waitUntil: (promise: Promise<unknown>) => void;
}

// The network, called as a function: the SDK's transport calls its fetch as a method, which
// workerd's global fetch refuses ("Illegal invocation").
const upstreamFetch: FetchLike = (input, init) => fetch(input, init);

export class SourceUpstream {
  private readonly connections: UpstreamSessions;

  constructor(private readonly deps: SourceUpstreamDeps) {
    const { storage, env, waitUntil } = deps;
    const listChanged = new ListChangedRefresh({ storage, env, warm: () => this.connections.warm, waitUntil });
    const onToolsChanged = (connection: McpClientConnection) => listChanged.notice(connection);
    this.connections = new UpstreamSessions({ storage, fetch: upstreamFetch, onToolsChanged });
  }

  /** Whether a singleton source's warm connection is open now. */
  get warm(): boolean {
    return this.connections.warm !== undefined;
  }

  discover(config: UpstreamConfig): Promise<DiscoveryOutcome> {
    return discoverUpstream({ ...this.deps, connections: this.connections }, config);
  }

  callTool(config: UpstreamConfig, call: UpstreamCall): Promise<UpstreamCallOutcome> {
    return callSessionful({ breaker: this.deps.breaker, connections: this.connections }, config, call);
  }

  forward(config: UpstreamConfig, forward: UpstreamForward): Promise<UpstreamForwardOutcome> {
    return forwardSessionful({ breaker: this.deps.breaker, connections: this.connections }, config, forward);
  }

  /** Closes the warm connection (the source was deleted). */
  close(): Promise<void> {
    return this.connections.drop();
  }
}

/**
 * The composition root: the domain services every adapter (REST routes, MCP tools, the gateway)
 * works through, wired to the Worker's bindings and to what the isolate remembers between requests
 * (workers/isolate-state.ts). The HTTP middleware builds them once per request; MCP tools depend on
 * the `Services` type here, not on the HTTP layer that builds them.
 */
import { ActivityService } from "./activity/activity.service";
import { Authentication } from "./auth/auth.service";
import { SignInService } from "./auth/sign-in.service";
import { queueEventSink } from "./events/event-sink";
import { gatewayForConnections } from "./gateway/authorization/upstream-authorization";
import { HiddenToolService } from "./gateway/catalog/hidden-tools.service";
import { SourceCalls } from "./gateway/calls/source-calls.service";
import { SourceSkills } from "./gateway/calls/source-skills.service";
import { SourceDiscovery } from "./gateway/discovery/source-discovery.service";
import { SourceHealthService } from "./gateway/catalog/source-health.service";
import { SourceRegistry } from "./gateway/registry/source-registry.service";
import { ToolChangeService } from "./gateway/discovery/tool-changes.service";
import { queueToolCallAudit, type RequestToolCallAudit } from "./gateway/calls/tool-call-audit";
import { McpRequestTelemetry } from "./telemetry/mcp-request";
import { type IsolateState, isolateState } from "./isolate-state";
import { anyReplicaD1, type BookmarkFloor, ReadYourWritesD1 } from "./lib/d1-sessions";
import { type Db, openDb } from "./lib/db";
import { log } from "./lib/log";
import { RateLimitService } from "./limits/rate-limits.service";
import { RagService } from "./rag/rag.service";
import { TaskService } from "./tasks/tasks.service";
import { ThinkingService } from "./thinking/thinking.service";
import { queueConnectionAudit } from "./upstream-connections/connection-audit";
import type { ConnectionDeps } from "./upstream-connections/connection-context";
import { leaseObjectRefreshGate } from "./upstream-connections/refresh-gate";
import { UpstreamConnections } from "./upstream-connections/upstream-connections.service";

export interface Services {
  db: Db;
  /** The bearer token of an /api or /mcp request: its principal, verified once and remembered a while. */
  authentication: Authentication;
  /** Sign-in: browser sessions, remembered consent, the grant, and the authorization server they run on. */
  signIn: SignInService;
  tasks: TaskService;
  rag: RagService;
  /** Gateway sources (upstream MCP servers): register, change, list, remove. */
  sources: SourceRegistry;
  /** Calls of sources' tools on /mcp (the one lookup, both call paths). */
  sourceCalls: SourceCalls;
  /** Sources' skills on /mcp (decision 0072). */
  sourceSkills: SourceSkills;
  sourceHealth: SourceHealthService;
  /** Sources' tools held for their owner's approval since their definitions changed upstream, and approving them (REST only). */
  toolChanges: ToolChangeService;
  /** Each user's hidden tools (REST, admin tools, the /mcp listing). */
  hiddenTools: HiddenToolService;
  /** The GATEWAY_CALL audit of every tool call on /mcp, built-in or source; each call is also told to `mcpRequest`. */
  toolCallAudit: RequestToolCallAudit;
  /** What this MCP request learned, for its data point and span (http/mcp-telemetry.ts, decision 0064). */
  mcpRequest: McpRequestTelemetry;
  /** Each user's sequential-thinking history, in their own Durable Object (`forUser`). */
  thinking: ThinkingService;
  /** Each user's budgets of tool calls and REST requests (Cloudflare's Rate Limiting bindings). */
  rateLimits: RateLimitService;
  /** Upstream connections: each user's connection to their OAuth-protected sources (connect, tokens, disconnect). */
  upstreamConnections: UpstreamConnections;
  /** Each user's own recent tool calls, from the GATEWAY_CALL audit (REST only). */
  activity: ActivityService;
}

/**
 * How the gateway reaches upstreams and their authorization servers: the network, called as a
 * function (the SDK's transports call their fetch as a method, which workerd's global fetch
 * refuses). No source is on this Worker's own origin (gateway/own-gateway-url.ts, decision 0057).
 */
const networkFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => fetch(input, init);

/** The audit, also telling the request's telemetry which source served each call and how long it took. */
function toldToTelemetry(audit: RequestToolCallAudit, telemetry: McpRequestTelemetry): RequestToolCallAudit {
  return {
    identify: (client) => audit.identify(client),
    record(call) {
      telemetry.observeToolCall({ source: call.source, durationMs: call.durationMs, outcome: call.outcome });
      audit.record(call);
    },
  };
}

/** The Worker's public origin from SELF_ORIGIN alone (crons and entry points have no request). */
function configuredOrigin(env: Pick<Env, "SELF_ORIGIN">): string | undefined {
  const value = env.SELF_ORIGIN?.trim();
  if (!value) return undefined;
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/**
 * What upstream connections are built from: the bindings, the gateway's port (its sources and
 * secrets box) and the isolate's opened tokens. `origin` is the Worker's public origin (links,
 * redirect URI, metadata document).
 */
export function upstreamConnectionDeps(
  env: Env,
  db: Db,
  waitUntil: (promise: Promise<unknown>) => void,
  origin = configuredOrigin(env),
  isolate: IsolateState = isolateState,
): ConnectionDeps {
  return {
    db,
    env,
    gateway: gatewayForConnections(db, env),
    openedTokens: isolate.openedUpstreamTokens,
    fetch: networkFetch,
    origin,
    audit: queueConnectionAudit(env.EVENTS, waitUntil),
    refreshGate: leaseObjectRefreshGate(env.UPSTREAM_REFRESH_LEASE),
  };
}

/**
 * Builds the gateway's discovery service: the registry, the cron and the Worker's inventory entry
 * point share it. `waitUntil` sends the events a discovery commits at once; without it the outbox
 * relay sends them.
 */
export function sourceDiscovery(
  env: Env,
  db: Db,
  waitUntil?: (promise: Promise<unknown>) => void,
  authorizer?: UpstreamConnections,
  isolate: IsolateState = isolateState,
): SourceDiscovery {
  const events = waitUntil ? queueEventSink(env.EVENTS, waitUntil) : undefined;
  const { breakers, callables, upstreamConfigs: configs } = isolate;
  const connections = authorizer ?? new UpstreamConnections(upstreamConnectionDeps(env, db, () => undefined, undefined, isolate));
  return new SourceDiscovery({ db, env, events, breakers, callables, configs, authorizer: connections });
}

/**
 * The request's waitUntil, handing each promise to the runtime once: a gateway call's audit message
 * and breaker report travel in one deferred run (gateway/calls/deferred-batch.ts), so the call keeps its
 * request alive with one promise, and a promise already kept is not handed over again.
 */
function keepingAliveOnce(waitUntil: (promise: Promise<unknown>) => void): (promise: Promise<unknown>) => void {
  const kept = new WeakSet<Promise<unknown>>();
  return (promise) => {
    if (kept.has(promise)) return;
    kept.add(promise);
    waitUntil(promise);
  };
}

/** `userId`'s floor of read-your-writes: their own UserBookmark object (durable-objects/user-bookmark.do.ts). */
export function userBookmarkFloor(bookmarks: Env["USER_BOOKMARKS"], userId: number): BookmarkFloor {
  const stub = bookmarks.get(bookmarks.idFromName(`user:${userId}`));
  return {
    latest: () => stub.latest(),
    advance: (bookmark) => stub.advance(bookmark),
  };
}

/**
 * Whether reads go through D1's Sessions API (D1_READ_REPLICATION, decision 0065): "on" once the
 * database replicates. Off, every read is the primary's and read-your-writes needs no bookmark, so
 * no request pays for the bookmark object. Anything but "on" or "off" is logged, naming the setting.
 */
function readReplication(env: Env): boolean {
  const value = env.D1_READ_REPLICATION.trim();
  if (value === "on") return true;
  if (value !== "off" && value !== "") log.warn("D1_READ_REPLICATION must be on or off: reading the primary", { value });
  return false;
}

/**
 * The one place a request's D1 session is chosen (decision 0065). A request made for a user reads
 * through D1's Sessions API from a replica at or after that user's latest acknowledged write, and
 * records each of its writes' bookmarks there; without a user (crons, entry points, the sign-in
 * pages, a request not yet authenticated) everything goes to the primary, as before replication.
 */
function requestDb(env: Env, userId: number | undefined): Db {
  if (userId === undefined || !readReplication(env)) return openDb(env.DB);
  const floorError = (error: unknown) =>
    log.warn("read-your-writes floor unavailable", { userId, error: error instanceof Error ? error.message : String(error) });
  return openDb(new ReadYourWritesD1(env.DB, userBookmarkFloor(env.USER_BOOKMARKS, userId), floorError));
}

/**
 * Services are made on first use: a request to one server never pays for the others. `origin` is
 * the Worker's public origin; `requestOrigin` the one the request arrived on (none without a request);
 * `isolate` what the services keep between requests (this isolate's, unless a test hands its own);
 * `userId` the authenticated user the request is made for (its D1 session: `requestDb`).
 */
export function createServices(
  env: Env,
  requestWaitUntil: (promise: Promise<unknown>) => void,
  origin = configuredOrigin(env),
  requestOrigin?: string,
  isolate: IsolateState = isolateState,
  userId?: number,
): Services {
  const db = requestDb(env, userId);
  const waitUntil = keepingAliveOnce(requestWaitUntil);
  let tasks: TaskService | undefined;
  let rag: RagService | undefined;
  let sources: SourceRegistry | undefined;
  let sourceCalls: SourceCalls | undefined;
  let sourceSkills: SourceSkills | undefined;
  let sourceHealth: SourceHealthService | undefined;
  let toolChanges: ToolChangeService | undefined;
  let hiddenTools: HiddenToolService | undefined;
  let toolCallAudit: RequestToolCallAudit | undefined;
  let mcpRequest: McpRequestTelemetry | undefined;
  let thinking: ThinkingService | undefined;
  let rateLimits: RateLimitService | undefined;
  let connections: UpstreamConnections | undefined;
  let authentication: Authentication | undefined;
  let signIn: SignInService | undefined;
  let activity: ActivityService | undefined;
  const services: Services = {
    db,
    get authentication() {
      return (authentication ??= new Authentication({
        db,
        // Tokens are looked up on any replica first (decision 0065): most are old, and a miss asks the primary.
        replica: readReplication(env) ? openDb(anyReplicaD1(env.DB)) : undefined,
        env,
        tokens: isolate.verifiedTokens,
        servers: isolate.authorizationServers,
      }));
    },
    get signIn() {
      const { authorizationServers: servers, clientDocuments: documents, openIdProviders } = isolate;
      return (signIn ??= new SignInService({ db, env, servers, documents, openIdProviders }));
    },
    get tasks() {
      return (tasks ??= new TaskService({ db, events: queueEventSink(env.EVENTS, waitUntil) }));
    },
    get rag() {
      return (rag ??= new RagService(db, env, waitUntil, isolate.rag));
    },
    get sources() {
      return (sources ??= new SourceRegistry({
        db,
        env,
        discovery: sourceDiscovery(env, db, waitUntil, services.upstreamConnections, isolate),
        breakers: isolate.breakers,
        callables: isolate.callables,
        authorizer: services.upstreamConnections,
        requestOrigin,
      }));
    },
    get sourceCalls() {
      return (sourceCalls ??= new SourceCalls({
        db,
        env,
        upstreamFetch: networkFetch,
        audit: services.toolCallAudit,
        breakers: isolate.breakers,
        callables: isolate.callables,
        configs: isolate.upstreamConfigs,
        waitUntil,
        // Only a call of an `oauth` source reads it: other calls do not build the OAuth service.
        get authorizer() {
          return services.upstreamConnections;
        },
        // The origin the connect links are made on (the upstream connections'): the only one a call may ask a client to open.
        ownOrigin: origin,
      }));
    },
    get sourceSkills() {
      return (sourceSkills ??= new SourceSkills({
        db,
        env,
        upstreamFetch: networkFetch,
        breakers: isolate.breakers,
        waitUntil,
        configs: isolate.upstreamConfigs,
        get authorizer() {
          return services.upstreamConnections;
        },
      }));
    },
    get sourceHealth() {
      return (sourceHealth ??= new SourceHealthService(db, env.GATEWAY_SOURCE, isolate.breakers));
    },
    get toolChanges() {
      return (toolChanges ??= new ToolChangeService({ db, events: queueEventSink(env.EVENTS, waitUntil), callables: isolate.callables }));
    },
    get hiddenTools() {
      return (hiddenTools ??= new HiddenToolService(db, isolate.callables));
    },
    get toolCallAudit() {
      return (toolCallAudit ??= toldToTelemetry(queueToolCallAudit(env.EVENTS, waitUntil, isolate.callEvents), services.mcpRequest));
    },
    get mcpRequest() {
      return (mcpRequest ??= new McpRequestTelemetry());
    },
    get thinking() {
      return (thinking ??= new ThinkingService(env.THINKING));
    },
    get rateLimits() {
      return (rateLimits ??= new RateLimitService(env));
    },
    get upstreamConnections() {
      return (connections ??= new UpstreamConnections(upstreamConnectionDeps(env, db, waitUntil, origin, isolate)));
    },
    get activity() {
      return (activity ??= new ActivityService(db, env));
    },
  };
  return services;
}

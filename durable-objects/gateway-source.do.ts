/**
 * One Durable Object per gateway source (idFromName(String(source id))): the authority on the
 * source's circuit breaker and call window, and the home of its connections when the upstream
 * keeps sessions. It talks to its own storage only.
 *
 * - Discovery connects (2025 handshake first), lists the tools and says what kind of upstream it
 *   is: `stateless` or `sessionful` (upstream.types.ts). The Worker's discovery service writes the
 *   inventory and the kind to D1.
 * - Sessionful calls (`callTool`) go through the object: singleton keeps one warm connection in
 *   memory (dropped after an error and re-made on the next call; after eviction the stored session
 *   is resumed), transient connects per call and closes.
 * - Stateless calls never pass through here: the Worker's isolates call the upstream themselves and
 *   consult the breaker through their view of it (workers/gateway/breaker-view.ts), which reads
 *   `breakerState`, asks `admitProbe` for the half-open probe and sends `report`s after the answers.
 *
 * Configuration (including decrypted headers) arrives with every call and is never stored here, so
 * a changed source takes effect at once (its fingerprint no longer matches the warm connection).
 * An owner's upstream OAuth token in it is sent only to a URL the resource it was issued for covers
 * (bearer-resource.ts): otherwise discovery and calls answer `authorization_required`, sending nothing.
 * The warm singleton connection also listens: on notifications/tools/list_changed the object
 * re-lists the tools and hands them to the Worker's inventory entry point (GATEWAY_INVENTORY, an
 * RPC the Worker side owns), which writes D1 through the discovery service.
 */
import { DurableObject } from "cloudflare:workers";
import { bearerRefusal } from "../workers/gateway/bearer-resource";
import { admit, CLOSED, probeLeaseMs, recordFailure, recordSuccess } from "../workers/gateway/breaker";
import { type CallRecord, callStats, recordCall } from "../workers/gateway/call-stats";
import type { SourceCallOutcome } from "../workers/gateway/source-call-result";
import type { UpstreamListing } from "../workers/gateway/upstream-connection";
import type {
  BreakerSnapshot,
  CallReport,
  DiscoveryOutcome,
  ProbeVerdict,
  SourceStatus,
  UpstreamCall,
  UpstreamCallOutcome,
  UpstreamConfig,
  UpstreamKind,
  UpstreamTool,
} from "../workers/gateway/upstream.types";
import { onFirstUse } from "../workers/lib/first-use";
import { isJsonObject } from "../workers/lib/json";
import type { FetchLike, McpClientConnection, Negotiated, SessionInfo } from "../workers/mcp-client/connect";

/**
 * What talks to upstreams — the MCP client SDK, the URL rules, the call results — imported by the
 * first discovery or call. Every isolate of the Worker evaluates this class when it starts, and few
 * of them ever talk to an upstream (decision 0034); the breaker and the call window need none of it.
 */
const upstreamSide = onFirstUse(async () => {
  const [connect, errors, connection, failure, result, answerLimit] = await Promise.all([
    import("../workers/mcp-client/connect"),
    import("../workers/mcp-client/errors"),
    import("../workers/gateway/upstream-connection"),
    import("../workers/gateway/upstream-failure"),
    import("../workers/gateway/source-call-result"),
    import("../workers/mcp-client/answer-limit"),
  ]);
  return {
    AnswerLimits: answerLimit.AnswerLimits,
    callMcpTool: connect.callMcpTool,
    closeMcp: connect.closeMcp,
    negotiated: connect.negotiated,
    sessionIdOf: connect.sessionIdOf,
    McpClientError: errors.McpClientError,
    listUpstreamTools: connection.listUpstreamTools,
    openUpstream: connection.openUpstream,
    upstreamFailure: failure.upstreamFailure,
    withRetries: failure.withRetries,
    circuitOpenMessage: result.circuitOpenMessage,
    errorOutcome: result.errorOutcome,
    settleCall: result.settleCall,
  };
});

const BREAKER_KEY = "breaker";
const SESSION_KEY = "session";
const TOOLS_KEY = "tools";
const STALE_KEY = "inventory_stale_at";
const CALLS_KEY = "calls";
/** `refresh_lease:<user id>`: who is refreshing that user's upstream token for this source now (beginTokenRefresh). */
const REFRESH_LEASE_PREFIX = "refresh_lease:";

interface RefreshLease {
  id: string;
  /** Epoch ms: a holder that never ends its lease (its isolate died) frees it then. */
  until: number;
}

interface StoredSession extends SessionInfo {
  fingerprint: string;
}

/** stdio is served by a bridge, which keeps a session per process; SSE's session is its stream. */
function kindOf(config: UpstreamConfig, connection: Negotiated): UpstreamKind {
  if (config.transport === "sse" || config.transport === "stdio") return "sessionful";
  return connection.sessionId === null ? "stateless" : "sessionful";
}

function sameBreaker(a: BreakerSnapshot, b: BreakerSnapshot): boolean {
  return a.state === b.state && a.failures === b.failures && a.openedAt === b.openedAt;
}

function outcomeOf({ resultJson, meta }: SourceCallOutcome): UpstreamCallOutcome {
  return { resultJson, meta };
}

export class GatewaySource extends DurableObject<Env> {
  private warm: { connection: McpClientConnection; fingerprint: string; config: UpstreamConfig } | undefined;
  /** A half-open probe is out until then (this object's own call, or an isolate's it admitted). */
  private probeUntil = 0;
  private readonly rpc: Record<string, number> = {};
  /** The list_changed refresh running now, so notifications arriving meanwhile queue one more. */
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  // The network, called as a function: the SDK's transport calls its fetch as a method, which
  // workerd's global fetch refuses ("Illegal invocation").
  private readonly upstreamFetch: FetchLike = (input, init) => fetch(input, init);
  /** Callers waiting for a user's token refresh to end (beginTokenRefresh), per user id. */
  private readonly refreshWaiters = new Map<number, Set<() => void>>();

  /**
   * Lists the upstream's tools. A streamable HTTP upstream is listed over a fresh handshake (never a
   * resumed session), so what the connection shows — session or not, the protocol version — is what
   * the upstream is now; a warm connection serving calls is left alone meanwhile. SSE and stdio
   * (through the bridge) always keep sessions: their warm connection is reused as before.
   */
  async discover(config: UpstreamConfig): Promise<DiscoveryOutcome> {
    this.count("discover");
    const refused = bearerRefusal(config);
    if (refused) {
      const error = { type: "authorization_required" as const, message: refused };
      const nothing = { toolsJson: "[]", kind: null, protocolVersion: null, discoverJson: null, inventoryStaleAt: null };
      return { ok: false, ...nothing, error, breaker: this.breaker() };
    }
    const { listUpstreamTools, negotiated, upstreamFailure } = await upstreamSide();
    const learnsKind = config.transport !== "sse" && config.transport !== "stdio";
    const beside = learnsKind && this.warm?.fingerprint === config.fingerprint;
    if (learnsKind && !beside) this.ctx.storage.kv.delete(SESSION_KEY);
    const list = async (open: McpClientConnection) => ({
      listing: await listUpstreamTools(open, config.timeoutMs, this.env),
      connection: negotiated(open),
    });
    try {
      const { listing, connection } = beside ? await this.besideWarm(config, list) : await this.withConnection(config, list);
      const kind = kindOf(config, connection);
      // A stateless upstream is called from the Worker: nothing to keep open here.
      if (kind === "stateless") await this.dropWarm();
      const staleAt = this.keepInventory(listing);
      // An explicit, successful discovery is proof of health: it closes the breaker.
      this.ctx.storage.kv.put(BREAKER_KEY, recordSuccess());
      return {
        ok: true,
        toolsJson: JSON.stringify(listing.tools),
        kind,
        protocolVersion: connection.protocolVersion ?? this.storedSession()?.protocolVersion ?? null,
        discoverJson: kind === "stateless" && connection.discover ? JSON.stringify(connection.discover) : null,
        error: null,
        inventoryStaleAt: staleAt,
        breaker: CLOSED,
      };
    } catch (error) {
      const failure = upstreamFailure(error, false);
      if (failure.countsAsFailure) this.ctx.storage.kv.put(BREAKER_KEY, recordFailure(this.breaker(), Date.now()));
      return {
        ok: false,
        toolsJson: "[]",
        kind: null,
        protocolVersion: null,
        discoverJson: null,
        error: { type: failure.type, message: failure.message },
        inventoryStaleAt: null,
        breaker: this.breaker(),
      };
    }
  }

  /** A call of a sessionful source: admitted by the breaker, retried when safe, recorded in the window. */
  async callTool(config: UpstreamConfig, call: UpstreamCall): Promise<UpstreamCallOutcome> {
    this.count("callTool");
    const { callMcpTool, circuitOpenMessage, errorOutcome, settleCall, withRetries } = await upstreamSide();
    const started = Date.now();
    // Before the breaker: nothing is sent, so the upstream's health is not in question.
    const refused = bearerRefusal(config);
    if (refused) return outcomeOf(errorOutcome(config.slug, "authorization_required", refused, started));
    const admission = admit(this.breaker(), started, started < this.probeUntil);
    if (!admission.allowed) {
      return outcomeOf(errorOutcome(config.slug, "circuit_open", circuitOpenMessage(config.slug, admission.retryAfterMs), started));
    }
    this.ctx.storage.kv.put(BREAKER_KEY, admission.next);
    if (admission.probe) this.probeUntil = started + probeLeaseMs(config.timeoutMs);
    const args: unknown = JSON.parse(call.argumentsJson);
    const attempt = isJsonObject(args)
      ? await withRetries(
          () => this.withConnection(config, (open) => callMcpTool(open, call.name, args, config.timeoutMs, call.maxResultBytes)),
          call.idempotent,
        )
      : { failure: { type: "protocol" as const, message: "arguments must be an object", countsAsFailure: false, beforeSend: true } };
    const { outcome, report } = settleCall(config.slug, call, attempt, started, admission.probe);
    this.apply(report);
    return outcomeOf(outcome);
  }

  /** The breaker as it stands: what an isolate's view reads when it is cold or stale. */
  breakerState(): BreakerSnapshot {
    this.count("breakerState");
    return this.breaker();
  }

  /**
   * Whether an isolate may send the half-open probe now: granted to one caller at a time, for
   * `leaseMs` at most. A closed breaker (the isolate's view was behind) lets the call through.
   */
  admitProbe(leaseMs: number): ProbeVerdict {
    this.count("admitProbe");
    const now = Date.now();
    const admission = admit(this.breaker(), now, now < this.probeUntil);
    if (!admission.allowed) return { allowed: false, retryAfterMs: admission.retryAfterMs, breaker: this.breaker() };
    if (admission.probe) {
      this.ctx.storage.kv.put(BREAKER_KEY, admission.next);
      this.probeUntil = now + leaseMs;
    }
    return { allowed: true, retryAfterMs: 0, breaker: admission.next };
  }

  /** Stateless calls an isolate made, in the order they ended: the breaker and window follow them. */
  report(reports: CallReport[]): BreakerSnapshot {
    this.count("report");
    this.apply(...reports);
    return this.breaker();
  }

  status(): SourceStatus {
    const session = this.storedSession();
    return {
      breaker: this.breaker(),
      protocolVersion: session?.protocolVersion ?? null,
      sessionId: session?.sessionId ?? null,
      warm: this.warm !== undefined,
      toolCount: this.ctx.storage.kv.get<UpstreamTool[]>(TOOLS_KEY)?.length ?? 0,
      inventory_stale_at: this.ctx.storage.kv.get<string>(STALE_KEY) ?? null,
      calls: callStats(this.ctx.storage.kv.get<CallRecord[]>(CALLS_KEY) ?? []),
      rpc: { ...this.rpc },
    };
  }

  /** Closes the warm connection and forgets everything (the source was deleted). */
  async reset(): Promise<void> {
    this.count("reset");
    await this.dropWarm();
    for (const key of [BREAKER_KEY, SESSION_KEY, TOOLS_KEY, STALE_KEY, CALLS_KEY]) this.ctx.storage.kv.delete(key);
    for (const [key] of [...this.ctx.storage.kv.list({ prefix: REFRESH_LEASE_PREFIX })]) this.ctx.storage.kv.delete(key);
  }

  /**
   * The single-flight gate for refreshing `userId`'s upstream OAuth token of this source, across
   * isolates: an authorization server that rotates refresh tokens treats a second use of one as a
   * replay and ends the grant, so only one caller at a time may spend it. Free: the caller takes the
   * lease (its id comes back) for `leaseMs` at most, refreshes, and ends it. Held: the caller waits
   * until the holder ends it (or the lease runs out) and gets null — it reads the stored tokens
   * again, which are the holder's fresh ones (or, when they did not change, it asks again). The
   * lease is stored, so a restarted object still honours it; the waiters live in memory.
   */
  async beginTokenRefresh(userId: number, leaseMs: number): Promise<string | null> {
    this.count("beginTokenRefresh");
    const key = `${REFRESH_LEASE_PREFIX}${userId}`;
    const now = Date.now();
    const held = this.ctx.storage.kv.get<RefreshLease>(key);
    if (!held || held.until <= now) {
      const id = crypto.randomUUID();
      this.ctx.storage.kv.put(key, { id, until: now + leaseMs } satisfies RefreshLease);
      return id;
    }
    const waiters = this.refreshWaiters.get(userId) ?? new Set<() => void>();
    this.refreshWaiters.set(userId, waiters);
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.refreshWaiters.get(userId) === waiters) this.refreshWaiters.delete(userId);
        resolve();
      };
      const timer = setTimeout(wake, held.until - now);
      waiters.add(wake);
    });
    return null;
  }

  /** The holder of `leaseId` is done (refreshed, or failed and recorded why): the waiters read the tokens again. */
  endTokenRefresh(userId: number, leaseId: string): void {
    this.count("endTokenRefresh");
    const key = `${REFRESH_LEASE_PREFIX}${userId}`;
    // A holder whose lease ran out and was taken by another must not end the new holder's.
    if (this.ctx.storage.kv.get<RefreshLease>(key)?.id !== leaseId) return;
    this.ctx.storage.kv.delete(key);
    const waiters = this.refreshWaiters.get(userId);
    this.refreshWaiters.delete(userId);
    for (const wake of waiters ?? []) wake();
  }

  private count(method: string): void {
    this.rpc[method] = (this.rpc[method] ?? 0) + 1;
  }

  /** Calls' effect on the breaker and the call window, whichever path made them: one write of each at most. */
  private apply(...reports: CallReport[]): void {
    const before = this.breaker();
    let breaker = before;
    let calls = this.ctx.storage.kv.get<CallRecord[]>(CALLS_KEY) ?? [];
    for (const report of reports) {
      const at = report.at + report.ms;
      if (report.breaker === "failure") breaker = recordFailure(breaker, at);
      else if (report.breaker === "success") breaker = recordSuccess();
      if (report.probe) this.probeUntil = 0;
      calls = recordCall(calls, { at: report.at, ms: report.ms, error: report.error });
    }
    if (!sameBreaker(breaker, before)) this.ctx.storage.kv.put(BREAKER_KEY, breaker);
    this.ctx.storage.kv.put(CALLS_KEY, calls);
  }

  /** Keeps the object's copy of the inventory and returns when its cache hint expires. */
  private keepInventory(listing: UpstreamListing): string | null {
    this.ctx.storage.kv.put(TOOLS_KEY, listing.tools);
    const staleAt = listing.ttlMs === null ? null : new Date(Date.now() + listing.ttlMs).toISOString();
    if (staleAt === null) this.ctx.storage.kv.delete(STALE_KEY);
    else this.ctx.storage.kv.put(STALE_KEY, staleAt);
    return staleAt;
  }

  /**
   * notifications/tools/list_changed from the warm connection: re-list over it and hand the list to
   * the Worker's inventory entry point. Overlapping notifications collapse into one more refresh.
   */
  private toolsChanged(connection: McpClientConnection): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        const warm = this.warm;
        if (!warm || warm.connection !== connection) return;
        const { config } = warm;
        try {
          const { listUpstreamTools } = await upstreamSide();
          const listing = await listUpstreamTools(connection, config.timeoutMs, this.env);
          const staleAt = this.keepInventory(listing);
          await this.env.GATEWAY_INVENTORY.toolsChanged({ sourceId: config.sourceId, toolsJson: JSON.stringify(listing.tools), inventoryStaleAt: staleAt });
        } catch (error) {
          console.error(`gateway source ${config.slug}: refresh after list_changed failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
    });
    this.ctx.waitUntil(this.refreshing);
  }

  private async withConnection<T>(config: UpstreamConfig, use: (connection: McpClientConnection) => Promise<T>): Promise<T> {
    const { closeMcp, McpClientError } = await upstreamSide();
    if (config.lifecycle === "transient") {
      await this.dropWarm();
      const connection = await this.open(config, undefined);
      try {
        return await use(connection);
      } finally {
        await closeMcp(connection);
      }
    }
    const { connection, withSession } = await this.singleton(config);
    try {
      return await use(connection);
    } catch (error) {
      await this.dropWarm();
      // A session the upstream no longer knows (it restarted) is answered 404 without running
      // anything (streamable HTTP spec): start a fresh session once, transparently.
      if (withSession && error instanceof McpClientError && error.httpStatus === 404) {
        this.ctx.storage.kv.delete(SESSION_KEY);
        return use((await this.singleton(config)).connection);
      }
      throw error;
    }
  }

  /** A connection of its own, closed after use, next to the warm one (which keeps serving calls). */
  private async besideWarm<T>(config: UpstreamConfig, use: (connection: McpClientConnection) => Promise<T>): Promise<T> {
    const { closeMcp, openUpstream } = await upstreamSide();
    const connection = await openUpstream(config, this.upstreamFetch);
    try {
      return await use(connection);
    } finally {
      await closeMcp(connection);
    }
  }

  private async singleton(config: UpstreamConfig): Promise<{ connection: McpClientConnection; withSession: boolean }> {
    const { sessionIdOf } = await upstreamSide();
    if (this.warm?.fingerprint === config.fingerprint) {
      this.warm.config = config;
      return { connection: this.warm.connection, withSession: sessionIdOf(this.warm.connection) !== null };
    }
    await this.dropWarm();
    const stored = this.storedSession();
    const resume = stored?.fingerprint === config.fingerprint && stored.sessionId ? stored : undefined;
    let connection: McpClientConnection | undefined;
    connection = await this.open(config, resume, () => {
      if (connection) this.toolsChanged(connection);
    });
    this.warm = { connection, fingerprint: config.fingerprint, config };
    return { connection, withSession: resume !== undefined || sessionIdOf(connection) !== null };
  }

  /**
   * Opens a connection whose calls (callTool's maxResultBytes) have their answers bounded while they
   * stream in; listings over it are not bounded here (they are discovery's to bound).
   */
  private async open(config: UpstreamConfig, resume: SessionInfo | undefined, onToolsChanged?: () => void): Promise<McpClientConnection> {
    const { AnswerLimits, negotiated, openUpstream } = await upstreamSide();
    const answerLimits = new AnswerLimits();
    const connection = { ...(await openUpstream(config, answerLimits.wrap(this.upstreamFetch), { resume, onToolsChanged })), answerLimits };
    const now = negotiated(connection);
    const session: StoredSession = { protocolVersion: now.protocolVersion ?? resume?.protocolVersion ?? null, sessionId: now.sessionId, fingerprint: config.fingerprint };
    this.ctx.storage.kv.put(SESSION_KEY, session);
    return connection;
  }

  private async dropWarm(): Promise<void> {
    const warm = this.warm;
    this.warm = undefined;
    if (warm) await (await upstreamSide()).closeMcp(warm.connection);
  }

  private breaker(): BreakerSnapshot {
    return this.ctx.storage.kv.get<BreakerSnapshot>(BREAKER_KEY) ?? CLOSED;
  }

  private storedSession(): StoredSession | undefined {
    return this.ctx.storage.kv.get<StoredSession>(SESSION_KEY);
  }
}

/**
 * One Durable Object per gateway source (idFromName(String(source id))). It owns the source's
 * upstream connection, negotiated protocol version and session, its last discovered tool list
 * and its circuit breaker, and exposes them as typed RPC methods.
 *
 * - singleton: one warm connection is kept in memory and reused; after an error it is dropped
 *   and re-made on the next call; after eviction the stored session is resumed when it has one.
 * - transient: each call connects and closes.
 * Configuration (including decrypted headers) arrives with every call and is never stored here,
 * so a changed source takes effect at once (its fingerprint no longer matches the warm connection).
 *
 * The warm singleton connection also listens: when the upstream sends
 * notifications/tools/list_changed (on the GET stream the SDK opens after initialize), the object
 * re-lists the tools and writes the inventory to D1 itself, so /mcp's listing follows without a
 * gateway request. Every tools/list reads the 2026-07-28 cache hint (`ttlMs`) into
 * `inventory_stale_at` for the scheduled rediscovery. status() carries a window of the last calls.
 */
import { DurableObject } from "cloudflare:workers";
import { backoffMs, MAX_ATTEMPTS, sleep } from "../workers/gateway/backoff";
import { admit, CLOSED, recordFailure, recordSuccess } from "../workers/gateway/breaker";
import { type CallRecord, callStats, recordCall } from "../workers/gateway/call-stats";
import type { SessionInfo, ToolListing, Upstream } from "../workers/gateway/upstream-client";
import { nowIso } from "../workers/lib/clock";
import { onFirstUse } from "../workers/lib/first-use";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type {
  BreakerSnapshot,
  DiscoveryOutcome,
  SourceStatus,
  UpstreamCall,
  UpstreamCallMeta,
  UpstreamCallOutcome,
  UpstreamConfig,
  UpstreamErrorType,
  UpstreamTool,
} from "../workers/gateway/upstream.types";
import { isJsonObject, type JsonObject } from "../workers/lib/json";

// The MCP client SDK and drizzle are imported by the first call, not when a new isolate starts
// (every isolate evaluates this class; few of them ever talk to an upstream).
const upstreamClient = onFirstUse(() => import("../workers/gateway/upstream-client"));
type UpstreamClient = Awaited<ReturnType<typeof upstreamClient>>;
const inventoryWriter = onFirstUse(async () => {
  const [{ replaceTools }, { openDb }] = await Promise.all([import("../workers/gateway/sources.repo"), import("../workers/lib/db")]);
  return { replaceTools, openDb };
});

const BREAKER_KEY = "breaker";
const SESSION_KEY = "session";
const TOOLS_KEY = "tools";
const STALE_KEY = "inventory_stale_at";
const CALLS_KEY = "calls";

interface StoredSession extends SessionInfo {
  fingerprint: string;
}

export class GatewaySource extends DurableObject<Env> {
  private warm: { upstream: Upstream; fingerprint: string; config: UpstreamConfig } | undefined;
  private probeInFlight = false;
  /** The list_changed refresh running now, so notifications arriving meanwhile queue one more. */
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;

  async discover(config: UpstreamConfig): Promise<DiscoveryOutcome> {
    const client = await upstreamClient();
    try {
      const listing = await this.withConnection(config, (upstream) => client.listUpstreamTools(upstream, config.timeoutMs));
      const staleAt = this.keepInventory(listing);
      // An explicit, successful discovery is proof of health: it closes the breaker.
      this.ctx.storage.kv.put(BREAKER_KEY, recordSuccess());
      return {
        ok: true,
        toolsJson: JSON.stringify(listing.tools),
        protocolVersion: this.storedSession()?.protocolVersion ?? null,
        error: null,
        inventoryStaleAt: staleAt,
      };
    } catch (error) {
      const failure = client.toUpstreamError(error, false);
      if (failure.countsAsFailure) this.ctx.storage.kv.put(BREAKER_KEY, recordFailure(this.breaker(), Date.now()));
      return { ok: false, toolsJson: "[]", protocolVersion: null, error: { type: failure.type, message: failure.message }, inventoryStaleAt: null };
    }
  }

  async callTool(config: UpstreamConfig, call: UpstreamCall): Promise<UpstreamCallOutcome> {
    const started = Date.now();
    const admission = admit(this.breaker(), started, this.probeInFlight);
    if (!admission.allowed) {
      return errorResult(
        config.slug,
        "circuit_open",
        `source ${config.slug} is failing; its circuit breaker is open — retry in ${Math.ceil(admission.retryAfterMs / 1000)} s`,
        started,
      );
    }
    this.ctx.storage.kv.put(BREAKER_KEY, admission.next);
    if (admission.probe) this.probeInFlight = true;
    try {
      const result = await this.callWithRetries(config, call);
      this.ctx.storage.kv.put(BREAKER_KEY, recordSuccess());
      const meta: UpstreamCallMeta = { source: config.slug, execution_time_ms: Date.now() - started };
      if (result.isError) meta.error_type = "tool_error";
      this.record({ at: started, ms: meta.execution_time_ms, error: null });
      return { resultJson: JSON.stringify({ ...result, _meta: { ...result._meta, ...meta } }), meta };
    } catch (error) {
      const failure = (await upstreamClient()).toUpstreamError(error, false);
      if (failure.countsAsFailure) this.ctx.storage.kv.put(BREAKER_KEY, recordFailure(this.breaker(), Date.now()));
      // A refused URL says nothing of the upstream's health: the breaker stays as it was.
      else if (failure.type !== "url_refused") this.ctx.storage.kv.put(BREAKER_KEY, recordSuccess());
      this.record({ at: started, ms: Date.now() - started, error: `${failure.type}: ${failure.message}` });
      return errorResult(config.slug, failure.type, failure.message, started);
    } finally {
      if (admission.probe) this.probeInFlight = false;
    }
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
    };
  }

  /** Closes the warm connection and forgets everything (the source was deleted). */
  async reset(): Promise<void> {
    await this.dropWarm();
    this.ctx.storage.kv.delete(BREAKER_KEY);
    this.ctx.storage.kv.delete(SESSION_KEY);
    this.ctx.storage.kv.delete(TOOLS_KEY);
    this.ctx.storage.kv.delete(STALE_KEY);
    this.ctx.storage.kv.delete(CALLS_KEY);
  }

  /** Keeps the object's copy of the inventory and returns when its cache hint expires. */
  private keepInventory(listing: ToolListing): string | null {
    this.ctx.storage.kv.put(TOOLS_KEY, listing.tools);
    const staleAt = listing.ttlMs === null ? null : new Date(Date.now() + listing.ttlMs).toISOString();
    if (staleAt === null) this.ctx.storage.kv.delete(STALE_KEY);
    else this.ctx.storage.kv.put(STALE_KEY, staleAt);
    return staleAt;
  }

  private record(call: CallRecord): void {
    this.ctx.storage.kv.put(CALLS_KEY, recordCall(this.ctx.storage.kv.get<CallRecord[]>(CALLS_KEY) ?? [], call));
  }

  /**
   * notifications/tools/list_changed from the warm connection: re-list over it and write the
   * inventory to D1. Overlapping notifications collapse into one more refresh after the current one.
   */
  private toolsChanged(upstream: Upstream): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        const warm = this.warm;
        if (!warm || warm.upstream !== upstream) return;
        const { config } = warm;
        try {
          const [client, { replaceTools, openDb }] = await Promise.all([upstreamClient(), inventoryWriter()]);
          const listing = await client.listUpstreamTools(upstream, config.timeoutMs);
          const staleAt = this.keepInventory(listing);
          await replaceTools(openDb(this.env.DB), { id: config.sourceId, slug: config.slug }, listing.tools, nowIso(), staleAt);
        } catch (error) {
          console.error(`gateway source ${config.slug}: refresh after list_changed failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
    });
    this.ctx.waitUntil(this.refreshing);
  }

  /**
   * Retries only what cannot have run twice: failures while connecting (the call was never
   * sent), or any connection failure of a tool the upstream annotated idempotent.
   */
  private async callWithRetries(config: UpstreamConfig, call: UpstreamCall): Promise<CallToolResult> {
    const client = await upstreamClient();
    const args: Record<string, unknown> = parseArguments(client, call.argumentsJson);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.withConnection(config, (upstream) => client.callUpstreamTool(upstream, call.name, args, config.timeoutMs));
      } catch (error) {
        const failure = client.toUpstreamError(error, false);
        const retriable = failure.type === "connection" && (failure.beforeSend || call.idempotent);
        if (!retriable || attempt >= MAX_ATTEMPTS) throw failure;
        await sleep(backoffMs(attempt));
      }
    }
  }

  private async withConnection<T>(config: UpstreamConfig, use: (upstream: Upstream) => Promise<T>): Promise<T> {
    const client = await upstreamClient();
    if (config.lifecycle === "transient") {
      await this.dropWarm();
      const upstream = await this.open(config, undefined);
      try {
        return await use(upstream);
      } finally {
        await client.closeUpstream(upstream);
      }
    }
    const { upstream, withSession } = await this.singleton(config);
    try {
      return await use(upstream);
    } catch (error) {
      await this.dropWarm();
      // A session the upstream no longer knows (it restarted) is answered 404 without running
      // anything (streamable HTTP spec): start a fresh session once, transparently.
      if (withSession && error instanceof client.UpstreamError && error.httpStatus === 404) {
        this.ctx.storage.kv.delete(SESSION_KEY);
        return use((await this.singleton(config)).upstream);
      }
      throw error;
    }
  }

  private async singleton(config: UpstreamConfig): Promise<{ upstream: Upstream; withSession: boolean }> {
    const client = await upstreamClient();
    if (this.warm?.fingerprint === config.fingerprint) {
      this.warm.config = config;
      return { upstream: this.warm.upstream, withSession: client.sessionIdOf(this.warm.upstream) !== null };
    }
    await this.dropWarm();
    const stored = this.storedSession();
    const resume = stored?.fingerprint === config.fingerprint && stored.sessionId ? stored : undefined;
    let upstream: Upstream | undefined;
    upstream = await this.open(config, resume, () => {
      if (upstream) this.toolsChanged(upstream);
    });
    this.warm = { upstream, fingerprint: config.fingerprint, config };
    return { upstream, withSession: resume !== undefined || client.sessionIdOf(upstream) !== null };
  }

  private async open(config: UpstreamConfig, resume: SessionInfo | undefined, onToolsChanged?: () => void): Promise<Upstream> {
    const client = await upstreamClient();
    const upstream = await client.connectUpstream(config, this.env, { resume, onToolsChanged });
    const session: StoredSession = { ...client.sessionOf(upstream), fingerprint: config.fingerprint };
    if (session.protocolVersion === null && resume) session.protocolVersion = resume.protocolVersion;
    this.ctx.storage.kv.put(SESSION_KEY, session);
    return upstream;
  }

  private async dropWarm(): Promise<void> {
    const warm = this.warm;
    this.warm = undefined;
    if (warm) await (await upstreamClient()).closeUpstream(warm.upstream);
  }

  private breaker(): BreakerSnapshot {
    return this.ctx.storage.kv.get<BreakerSnapshot>(BREAKER_KEY) ?? CLOSED;
  }

  private storedSession(): StoredSession | undefined {
    return this.ctx.storage.kv.get<StoredSession>(SESSION_KEY);
  }
}

function errorResult(source: string, type: UpstreamErrorType, message: string, started: number): UpstreamCallOutcome {
  const meta: UpstreamCallMeta = { source, execution_time_ms: Date.now() - started, error_type: type };
  return { resultJson: JSON.stringify({ isError: true, content: [{ type: "text", text: `${type}: ${message}` }], _meta: meta }), meta };
}

function parseArguments(client: UpstreamClient, json: string): JsonObject {
  const value: unknown = JSON.parse(json);
  if (!isJsonObject(value)) throw new client.UpstreamError("protocol", "arguments must be an object", false, true);
  return { ...value };
}

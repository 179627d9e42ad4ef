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
 */
import { DurableObject } from "cloudflare:workers";
import { backoffMs, MAX_ATTEMPTS, sleep } from "../workers/gateway/backoff";
import { admit, CLOSED, recordFailure, recordSuccess } from "../workers/gateway/breaker";
import {
  callUpstreamTool,
  connectUpstream,
  listUpstreamTools,
  type SessionInfo,
  sessionOf,
  type Upstream,
  UpstreamError,
  toUpstreamError,
} from "../workers/gateway/upstream-client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type {
  BreakerSnapshot,
  DiscoveryOutcome,
  UpstreamCall,
  UpstreamCallMeta,
  UpstreamCallOutcome,
  UpstreamConfig,
  UpstreamErrorType,
  UpstreamTool,
} from "../workers/gateway/upstream.types";

const BREAKER_KEY = "breaker";
const SESSION_KEY = "session";
const TOOLS_KEY = "tools";

interface StoredSession extends SessionInfo {
  fingerprint: string;
}

export interface SourceStatus {
  breaker: BreakerSnapshot;
  protocolVersion: string | null;
  sessionId: string | null;
  warm: boolean;
  toolCount: number;
}

export class GatewaySource extends DurableObject<Env> {
  private warm: { upstream: Upstream; fingerprint: string } | undefined;
  private probeInFlight = false;

  async discover(config: UpstreamConfig): Promise<DiscoveryOutcome> {
    try {
      const tools = await this.withConnection(config, (upstream) => listUpstreamTools(upstream, config.timeoutMs));
      this.ctx.storage.kv.put(TOOLS_KEY, tools);
      // An explicit, successful discovery is proof of health: it closes the breaker.
      this.ctx.storage.kv.put(BREAKER_KEY, recordSuccess());
      return { ok: true, toolsJson: JSON.stringify(tools), protocolVersion: this.storedSession()?.protocolVersion ?? null, error: null };
    } catch (error) {
      const failure = toUpstreamError(error, false);
      if (failure.countsAsFailure) this.ctx.storage.kv.put(BREAKER_KEY, recordFailure(this.breaker(), Date.now()));
      return { ok: false, toolsJson: "[]", protocolVersion: null, error: { type: failure.type, message: failure.message } };
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
      return { resultJson: JSON.stringify({ ...result, _meta: { ...result._meta, ...meta } }), meta };
    } catch (error) {
      const failure = toUpstreamError(error, false);
      if (failure.countsAsFailure) this.ctx.storage.kv.put(BREAKER_KEY, recordFailure(this.breaker(), Date.now()));
      else this.ctx.storage.kv.put(BREAKER_KEY, recordSuccess());
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
    };
  }

  /** Closes the warm connection and forgets everything (the source was deleted). */
  async reset(): Promise<void> {
    await this.dropWarm();
    this.ctx.storage.kv.delete(BREAKER_KEY);
    this.ctx.storage.kv.delete(SESSION_KEY);
    this.ctx.storage.kv.delete(TOOLS_KEY);
  }

  /**
   * Retries only what cannot have run twice: failures while connecting (the call was never
   * sent), or any connection failure of a tool the upstream annotated idempotent.
   */
  private async callWithRetries(config: UpstreamConfig, call: UpstreamCall): Promise<CallToolResult> {
    const args: Record<string, unknown> = parseArguments(call.argumentsJson);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.withConnection(config, (upstream) => callUpstreamTool(upstream, call.name, args, config.timeoutMs));
      } catch (error) {
        const failure = toUpstreamError(error, false);
        const retriable = failure.type === "connection" && (failure.beforeSend || call.idempotent);
        if (!retriable || attempt >= MAX_ATTEMPTS) throw failure;
        await sleep(backoffMs(attempt));
      }
    }
  }

  private async withConnection<T>(config: UpstreamConfig, use: (upstream: Upstream) => Promise<T>): Promise<T> {
    if (config.lifecycle === "transient") {
      await this.dropWarm();
      const upstream = await this.open(config, undefined);
      try {
        return await use(upstream);
      } finally {
        await upstream.client.close().catch(() => undefined);
      }
    }
    const { upstream, withSession } = await this.singleton(config);
    try {
      return await use(upstream);
    } catch (error) {
      await this.dropWarm();
      // A session the upstream no longer knows (it restarted) is answered 404 without running
      // anything (streamable HTTP spec): start a fresh session once, transparently.
      if (withSession && error instanceof UpstreamError && error.httpStatus === 404) {
        this.ctx.storage.kv.delete(SESSION_KEY);
        return use((await this.singleton(config)).upstream);
      }
      throw error;
    }
  }

  private async singleton(config: UpstreamConfig): Promise<{ upstream: Upstream; withSession: boolean }> {
    if (this.warm?.fingerprint === config.fingerprint) {
      return { upstream: this.warm.upstream, withSession: this.warm.upstream.transport.sessionId !== undefined };
    }
    await this.dropWarm();
    const stored = this.storedSession();
    const resume = stored?.fingerprint === config.fingerprint && stored.sessionId ? stored : undefined;
    const upstream = await this.open(config, resume);
    this.warm = { upstream, fingerprint: config.fingerprint };
    return { upstream, withSession: resume !== undefined || upstream.transport.sessionId !== undefined };
  }

  private async open(config: UpstreamConfig, resume: SessionInfo | undefined): Promise<Upstream> {
    const upstream = await connectUpstream(config, this.env, resume);
    const session: StoredSession = { ...sessionOf(upstream), fingerprint: config.fingerprint };
    if (session.protocolVersion === null && resume) session.protocolVersion = resume.protocolVersion;
    this.ctx.storage.kv.put(SESSION_KEY, session);
    return upstream;
  }

  private async dropWarm(): Promise<void> {
    const warm = this.warm;
    this.warm = undefined;
    if (warm) await warm.upstream.client.close().catch(() => undefined);
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

function parseArguments(json: string): Record<string, unknown> {
  const value: unknown = JSON.parse(json);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new UpstreamError("protocol", "arguments must be an object", false, true);
  return { ...value };
}

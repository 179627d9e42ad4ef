/**
 * Calls of sources' tools on /mcp: the one lookup of a callable tool and the one call path behind
 * both the SDK's tool handler and the fast path (gateway.server.ts); what it finds is kept briefly
 * per isolate (callable-cache.ts). A source discovery found
 * stateless is called straight from this isolate (stateless-path.ts); any other through its
 * Durable Object, which keeps the session. Every call is audited (GATEWAY_CALL), on both paths.
 * A source whose upstream uses MCP authorization is called with its owner's token, on both paths
 * (upstream-authorization.ts): refreshed and retried once after a 401; without a usable token, or
 * after a 403 insufficient_scope, the call answers `authorization_required` with the link to connect
 * — and only that outcome, with a link on the gateway's own origin, may be asked of the client as
 * a URL elicitation (`SourceCallOutcome.connect`, decision 0051). Every answer is bounded by
 * GATEWAY_MAX_RESULT_BYTES while it streams in, on both paths. A source's resources, prompts and
 * completions travel the same path (`forward`, decision 0068), and a call's result comes back with
 * its resource URIs named for /mcp (uri-rewrite.ts).
 */
import type { Db } from "../../lib/db";
import type { FetchLike } from "../../mcp-client/connect";
import type { BreakerView, SourceObject } from "./breaker-view";
import type { CallableToolCache } from "./callable-cache";
import { splitGatewayName } from "../sources/gateway-names";
import { maxResultBytes } from "../sources/gateway-limits";
import { secretBox, type SecretBox } from "../sources/secrets";
import { authorizationOutcome, heldToolRefusal, type SourceCallOutcome } from "./source-call-result";
import { type CallableTool, type CallSource, findCallableTool } from "../sources/sources.repo";
import { callStatelessSource, forwardStatelessSource } from "./stateless-path";
import { toolResultNamed } from "./uri-rewrite";
import { servedSource, servedSources } from "../sources/federated-sources.repo";
import type { ForwardedRequest, UpstreamAnswer } from "../../mcp-client/upstream-request";
import { AppError } from "../../lib/errors";
import type { ToolCallAudit } from "./tool-call-audit";
import {
  authorizationMessage,
  type AuthorizationNeeded,
  isAuthorizationNeeded,
  type UpstreamAuthorizer,
  withBearer,
} from "../authorization/upstream-authorization";
import { type OpenedConfigs, openedConfigs, upstreamConfig } from "./upstream-config";
import type { ConnectRequest, UpstreamConfig, UpstreamForwardOutcome } from "../sources/upstream.types";

export interface SourceCallsDeps {
  db: Db;
  env: Pick<Env, "GATEWAY_SOURCE" | "SOURCE_SECRETS_KEY" | "ALLOW_PRIVATE_UPSTREAMS" | "SELF_ORIGIN" | "GATEWAY_MAX_RESULT_BYTES">;
  /** How this isolate reaches upstreams: the network (a test may bring its own). */
  upstreamFetch: FetchLike;
  audit: ToolCallAudit;
  breakers: BreakerView;
  /** Where looked-up tools are kept (the isolate's, workers/isolate-state.ts). */
  callables: CallableToolCache;
  /** Opened upstream configs kept across requests (the isolate's); a service built without them (a test) keeps its own. */
  configs?: OpenedConfigs | undefined;
  waitUntil: (promise: Promise<unknown>) => void;
  /** Sources' MCP authorization: the owner's token for `oauth` sources (without it they answer authorization_required). */
  authorizer?: UpstreamAuthorizer | undefined;
  /** The gateway's public origin, where its connect links live; without one, no call is asked as an elicitation. */
  ownOrigin?: string | undefined;
}

/** The connect request of an `authorization_required` answer, when its link is the gateway's own. */
function connectRequest(needed: AuthorizationNeeded, link: string | undefined, ownOrigin: string | undefined): ConnectRequest | undefined {
  if (link === undefined || ownOrigin === undefined || !URL.canParse(link)) return undefined;
  const url = new URL(link);
  if (url.origin !== ownOrigin || url.username !== "" || url.password !== "") return undefined;
  return { state: needed.state, url: url.href, scope: needed.scope ?? null };
}

/** The outcome with its result's resource links and embedded resources named for /mcp (uri-rewrite.ts); the same when it has none. */
function withGatewayUris(slug: string, outcome: SourceCallOutcome): SourceCallOutcome {
  const result = toolResultNamed(slug, outcome.result);
  return result === outcome.result ? outcome : { ...outcome, result, resultJson: JSON.stringify(result) };
}

export class SourceCalls {
  private readonly secrets: SecretBox;

  private readonly callables: CallableToolCache;
  private readonly configs: OpenedConfigs;
  constructor(private readonly deps: SourceCallsDeps) {
    this.secrets = secretBox(deps.env.SOURCE_SECRETS_KEY);
    this.callables = deps.callables;
    this.configs = deps.configs ?? openedConfigs();
  }

  /** The tool a gateway name calls for this user, or undefined: unknown, hidden, disabled, deleted or another user's. */
  async find(userId: number, name: string): Promise<CallableTool | undefined> {
    const cached = this.callables.get(userId, name);
    if (cached) return cached;
    const parts = splitGatewayName(name);
    const found = parts ? await findCallableTool(this.deps.db, userId, parts.slug, parts.alias) : undefined;
    if (found) this.callables.set(userId, name, found);
    return found;
  }

  /**
   * Calls a tool `find` returned for this same user, for a tools/call that has spent the user's
   * tool-call unit (mcp/tool-call-limit.ts); upstream failures come back as typed error results, never thrown.
   * A tool held for its owner's approval (decision 0049) is refused with a thrown `conflict`, before anything is sent.
   */
  async call(userId: number, target: CallableTool, args: Record<string, unknown>): Promise<SourceCallOutcome> {
    const started = Date.now();
    const { source, tool } = target;
    if (tool.held) throw heldToolRefusal(source, tool);
    const config = await upstreamConfig(source, this.secrets, this.deps.env, this.configs);
    const outcome = withGatewayUris(
      source.slug,
      source.upstreamAuth === "oauth"
        ? await this.callAuthorized(userId, target, config, args, started)
        : await this.send(userId, target, config, args),
    );
    this.deps.audit.record({
      userId,
      sourceId: source.id,
      source: source.slug,
      tool: tool.name,
      durationMs: Date.now() - started,
      outcome: outcome.meta.error_type ?? "ok",
    });
    return outcome;
  }

  /** With the owner's token; once more with a refreshed one after a 401. */
  private async callAuthorized(
    userId: number,
    target: CallableTool,
    config: UpstreamConfig,
    args: Record<string, unknown>,
    started: number,
  ): Promise<SourceCallOutcome> {
    const { source } = target;
    const authorizer = this.deps.authorizer;
    const needed = (why: AuthorizationNeeded): SourceCallOutcome => {
      const link = authorizer?.connectLink(source.id);
      return { ...authorizationOutcome(source.slug, why, link, started), connect: connectRequest(why, link, this.deps.ownOrigin) };
    };
    if (!authorizer) return needed({ state: "needs_authorization", scope: undefined });
    let token = await authorizer.bearer(source);
    if (isAuthorizationNeeded(token)) return needed(token);
    let outcome = await this.send(userId, target, await withBearer(config, token), args);
    if (outcome.meta.error_type === "unauthorized") {
      token = await authorizer.bearer(source, true);
      if (isAuthorizationNeeded(token)) return needed(token);
      outcome = await this.send(userId, target, await withBearer(config, token), args);
      if (outcome.meta.error_type === "unauthorized") return needed({ state: "authorization_expired", scope: undefined });
    }
    // A path refused to send the token to a URL its resource does not cover (bearer-resource.ts).
    if (outcome.meta.error_type === "authorization_required") return needed({ state: "needs_authorization", scope: undefined });
    if (outcome.meta.error_type === "insufficient_scope") return needed(await authorizer.needsScope(source, outcome.meta.required_scope));
    return outcome;
  }

  /** The sources whose resources, prompts and completions /mcp serves this user (decision 0068). */
  servedSources(userId: number): Promise<CallSource[]> {
    return servedSources(this.deps.db, userId);
  }

  /** The source a namespaced URI or prompt name names for this user, or undefined: unknown, hidden, disabled, deleted or another user's. */
  servedSource(userId: number, slug: string): Promise<CallSource | undefined> {
    return servedSource(this.deps.db, userId, slug);
  }

  /**
   * A list, read, prompt or completion of a source `servedSource(s)` returned for this same user
   * (decision 0068), by the call path its tools take — same breaker, timeouts, retries, token and
   * bound on the answer — and audited with its method. The upstream's answer (its result, or the
   * JSON-RPC error it answered); when none came, a typed AppError naming the source and why.
   */
  async forward(userId: number, source: CallSource, request: ForwardedRequest, audited: string): Promise<UpstreamAnswer> {
    const started = Date.now();
    const config = await upstreamConfig(source, this.secrets, this.deps.env, this.configs);
    const outcome =
      source.upstreamAuth === "oauth"
        ? await this.forwardAuthorized(source, config, request)
        : await this.sendForward(source, config, request);
    const failed = outcome instanceof AppError ? "authorization_required" : outcome.meta.error_type;
    this.deps.audit.record({
      userId,
      sourceId: source.id,
      source: source.slug,
      tool: audited,
      method: request.method,
      durationMs: Date.now() - started,
      outcome: failed ?? "ok",
    });
    if (outcome instanceof AppError) throw outcome;
    if (outcome.answerJson === null) {
      const failure = outcome.failure ?? "no answer";
      const code =
        outcome.meta.error_type === "timeout" ? "timeout" : outcome.meta.error_type === "circuit_open" ? "unavailable" : "upstream_error";
      throw new AppError(code, `source ${source.slug} did not answer ${request.method}: ${failure}`);
    }
    return JSON.parse(outcome.answerJson) as UpstreamAnswer;
  }

  /** With the owner's token, once more with a refreshed one after a 401; without a usable token, the refusal naming how to connect. */
  private async forwardAuthorized(
    source: CallSource,
    config: UpstreamConfig,
    request: ForwardedRequest,
  ): Promise<UpstreamForwardOutcome | AppError> {
    const authorizer = this.deps.authorizer;
    const needed = (why: AuthorizationNeeded) =>
      new AppError("forbidden", `authorization_required: ${authorizationMessage(source.slug, why, authorizer?.connectLink(source.id))}`);
    if (!authorizer) return needed({ state: "needs_authorization", scope: undefined });
    let token = await authorizer.bearer(source);
    if (isAuthorizationNeeded(token)) return needed(token);
    let outcome = await this.sendForward(source, await withBearer(config, token), request);
    if (outcome.meta.error_type === "unauthorized") {
      token = await authorizer.bearer(source, true);
      if (isAuthorizationNeeded(token)) return needed(token);
      outcome = await this.sendForward(source, await withBearer(config, token), request);
    }
    if (outcome.meta.error_type === "insufficient_scope") return needed(await authorizer.needsScope(source, outcome.meta.required_scope));
    return outcome;
  }

  private sendForward(source: CallSource, config: UpstreamConfig, request: ForwardedRequest): Promise<UpstreamForwardOutcome> {
    const maxBytes = maxResultBytes(this.deps.env);
    if (source.upstreamKind === "stateless" && source.protocolVersion !== null) {
      const object = () => this.object(source.id);
      return forwardStatelessSource(
        { fetch: this.deps.upstreamFetch, breakers: this.deps.breakers, object, waitUntil: this.deps.waitUntil },
        config,
        { request, protocolVersion: source.protocolVersion, discover: source.discoverResult ?? undefined, maxResultBytes: maxBytes },
      );
    }
    return this.object(source.id).forward(config, {
      method: request.method,
      paramsJson: JSON.stringify(request.params),
      maxResultBytes: maxBytes,
    });
  }

  /** A stateless source is called from this isolate, any other through its object, which keeps the session. */
  private async send(
    userId: number,
    { source, tool }: CallableTool,
    config: UpstreamConfig,
    args: Record<string, unknown>,
  ): Promise<SourceCallOutcome> {
    const object = () => this.object(source.id);
    const call = { name: tool.name, idempotent: tool.idempotent, output: tool.output, maxResultBytes: maxResultBytes(this.deps.env) };
    if (source.upstreamKind === "stateless" && source.protocolVersion !== null) {
      return callStatelessSource(
        { fetch: this.deps.upstreamFetch, breakers: this.deps.breakers, object, waitUntil: this.deps.waitUntil },
        config,
        { ...call, args, protocolVersion: source.protocolVersion, discover: source.discoverResult ?? undefined },
      );
    }
    const { resultJson, meta } = await object().callTool(config, { ...call, argumentsJson: JSON.stringify(args) });
    return { result: JSON.parse(resultJson) as Record<string, unknown>, resultJson, meta };
  }

  private object(sourceId: number): SourceObject {
    const namespace = this.deps.env.GATEWAY_SOURCE;
    return namespace.get(namespace.idFromName(String(sourceId)));
  }
}

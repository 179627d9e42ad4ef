/**
 * Calls of sources' tools on /mcp: the one lookup of a callable tool and the one call path behind
 * both the SDK's tool handler and the fast path (gateway.server.ts). A source discovery found
 * stateless is called straight from this isolate (stateless-path.ts); any other through its
 * Durable Object, which keeps the session. Every call is audited (GATEWAY_CALL), on both paths.
 */
import type { Db } from "../lib/db";
import type { FetchLike } from "../mcp-client/connect";
import type { BreakerView, SourceObject } from "./breaker-view";
import { splitGatewayName } from "./gateway-names";
import { secretBox, type SecretBox } from "./secrets";
import type { SourceCallOutcome } from "./source-call-result";
import { type CallableTool, findCallableTool } from "./sources.repo";
import { callStatelessSource } from "./stateless-path";
import type { ToolCallAudit } from "./tool-call-audit";
import { upstreamConfig } from "./upstream-config";

export interface SourceCallsDeps {
  db: Db;
  env: Pick<Env, "GATEWAY_SOURCE" | "SOURCE_SECRETS_KEY" | "ALLOW_PRIVATE_UPSTREAMS">;
  /** How this isolate reaches upstreams (SELF routing for its own origin). */
  fetch: FetchLike;
  audit: ToolCallAudit;
  breakers: BreakerView;
  waitUntil: (promise: Promise<unknown>) => void;
}

export class SourceCalls {
  private readonly secrets: SecretBox;

  constructor(private readonly deps: SourceCallsDeps) {
    this.secrets = secretBox(deps.env.SOURCE_SECRETS_KEY);
  }

  /** The tool a gateway name calls for this user, or undefined: unknown, hidden, disabled, deleted or another user's. */
  async find(userId: number, name: string): Promise<CallableTool | undefined> {
    const parts = splitGatewayName(name);
    return parts ? findCallableTool(this.deps.db, userId, parts.slug, parts.alias) : undefined;
  }

  /** Calls a tool `find` returned for this same user; upstream failures come back as typed error results, never thrown. */
  async call(userId: number, { source, tool }: CallableTool, args: Record<string, unknown>): Promise<SourceCallOutcome> {
    const started = Date.now();
    const config = await upstreamConfig(source, this.secrets, this.deps.env);
    const object = () => this.object(source.id);
    let outcome: SourceCallOutcome;
    if (source.upstreamKind === "stateless" && source.protocolVersion !== null) {
      outcome = await callStatelessSource(
        { fetch: this.deps.fetch, breakers: this.deps.breakers, object, waitUntil: this.deps.waitUntil },
        config,
        { name: tool.name, args, idempotent: tool.idempotent, output: tool.output, protocolVersion: source.protocolVersion, discover: source.discoverResult ?? undefined },
      );
    } else {
      const { resultJson, meta } = await object().callTool(config, {
        name: tool.name,
        argumentsJson: JSON.stringify(args),
        idempotent: tool.idempotent,
        output: tool.output,
      });
      outcome = { result: JSON.parse(resultJson) as Record<string, unknown>, resultJson, meta };
    }
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

  private object(sourceId: number): SourceObject {
    const namespace = this.deps.env.GATEWAY_SOURCE;
    return namespace.get(namespace.idFromName(String(sourceId)));
  }
}

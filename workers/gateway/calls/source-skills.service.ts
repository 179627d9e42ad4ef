/**
 * Sources' skills for /mcp (decision 0072): `skills/list`, `skills/get` and the reads of a skill's
 * files (`resources/read`) forwarded to the user's own served sources (federated-sources.repo.ts: a
 * foreign, disabled or hidden source is never reached — its skills are "not found").
 *
 * Each request opens its own connection to the source from this isolate, as a stateless call does
 * (the 2025 handshake first, connect.ts `legacy-first`), with what every call of the gateway has:
 * the source's circuit breaker (an open one is not asked; every request is reported to it, so it
 * counts in the source's health), retries of connection failures (a read is safe to resend), the
 * URL re-checked before connecting, the source's headers and secrets (upstream-config.ts), the
 * owner's token for an `oauth` source — sent only to a URL its resource covers — the source's
 * timeout, and the answer bounded by GATEWAY_MAX_RESULT_BYTES while it streams in. Skills are read
 * when a host connects or loads a skill, not per tool call, so a connection per request is the
 * price of reaching sessionful sources too without their object. A source that fails or does not
 * serve skills lists none; the others still list.
 */
import type { Db } from "../../lib/db";
import { AppError } from "../../lib/errors";
import { log } from "../../lib/log";
import { closeMcp, connectMcp, type FetchLike, type McpClientConnection } from "../../mcp-client/connect";
import { AnswerLimits } from "../../mcp-client/answer-limit";
import { getSkill, listSkills, type ReadResourceResult, readResource, type Skill } from "../../mcp-client/skills";
import { bearerRefusal } from "../authorization/bearer-resource";
import { isAuthorizationNeeded, type UpstreamAuthorizer, withBearer } from "../authorization/upstream-authorization";
import { maxResultBytes } from "../sources/gateway-limits";
import { secretBox, type SecretBox } from "../sources/secrets";
import { servedSource, servedSources } from "../sources/federated-sources.repo";
import type { CallSource } from "../sources/sources.repo";
import type { UpstreamConfig } from "../sources/upstream.types";
import { probeLeaseMs } from "./breaker";
import type { BreakerView, SourceObject } from "./breaker-view";
import { circuitOpenMessage } from "./source-call-result";
import { type OpenedConfigs, openedConfigs, upstreamConfig } from "./upstream-config";
import { GATEWAY_CLIENT_NAME, upstreamEndpoint } from "./upstream-connection";
import { breakerEffect, checkUpstreamUrl, withRetries } from "./upstream-failure";

/** How many of a user's sources one skills/list asks (in slug order), and how many skills it keeps of each. */
export const SKILL_SOURCES_MAX = 50;
export const SKILLS_PER_SOURCE_MAX = 100;

export interface SourceSkillsDeps {
  db: Db;
  env: Pick<Env, "GATEWAY_SOURCE" | "SOURCE_SECRETS_KEY" | "ALLOW_PRIVATE_UPSTREAMS" | "SELF_ORIGIN" | "GATEWAY_MAX_RESULT_BYTES">;
  upstreamFetch: FetchLike;
  /** This isolate's view of each source's breaker (the same as tool calls'). */
  breakers: BreakerView;
  waitUntil: (promise: Promise<unknown>) => void;
  configs?: OpenedConfigs | undefined;
  /** The owner's token for `oauth` sources; without it such a source serves no skills. */
  authorizer?: UpstreamAuthorizer | undefined;
}

/** A skill of a source, as the source lists it (its own URIs). */
export interface SourceSkill {
  slug: string;
  skill: Skill;
}

export class SourceSkills {
  private readonly secrets: SecretBox;
  private readonly configs: OpenedConfigs;

  constructor(private readonly deps: SourceSkillsDeps) {
    this.secrets = secretBox(deps.env.SOURCE_SECRETS_KEY);
    this.configs = deps.configs ?? openedConfigs();
  }

  /** Every skill of the user's served sources, asked in parallel; a source that fails lists none (logged). */
  async list(userId: number): Promise<SourceSkill[]> {
    const reachable = await servedSources(this.deps.db, userId, SKILL_SOURCES_MAX);
    const listed = await Promise.all(
      reachable.map(async (source) => {
        try {
          const skills = (await this.withSource(source, (open, config) => listSkills(open, config.timeoutMs, this.maxBytes()))) ?? [];
          return skills.slice(0, SKILLS_PER_SOURCE_MAX).map((skill) => ({ slug: source.slug, skill }));
        } catch (error) {
          log.warn("gateway.skills.list_failed", { source_id: source.id, error: error instanceof Error ? error.message : String(error) });
          return [];
        }
      }),
    );
    return listed.flat();
  }

  /** The skill at the source's `uri`, or undefined (no such served source of this user, or no such skill). */
  async get(userId: number, slug: string, uri: string): Promise<Skill | undefined> {
    const source = await servedSource(this.deps.db, userId, slug);
    if (!source) return undefined;
    return this.withSource(source, (open, config) => getSkill(open, uri, config.timeoutMs, this.maxBytes()));
  }

  /** A file of a source's skill, or undefined (no such served source of this user, or no such file). */
  async read(userId: number, slug: string, uri: string): Promise<ReadResourceResult | undefined> {
    const source = await servedSource(this.deps.db, userId, slug);
    if (!source) return undefined;
    return this.withSource(source, (open, config) => readResource(open, uri, config.timeoutMs, this.maxBytes()));
  }

  private maxBytes(): number {
    return maxResultBytes(this.deps.env);
  }

  /**
   * Runs `use` over a connection of its own to `source`, admitted by and reported to its breaker;
   * undefined when the source cannot be asked (no usable token). A failure throws `unavailable`.
   */
  private async withSource<T>(
    source: CallSource,
    use: (open: McpClientConnection, config: UpstreamConfig) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const config = await this.configOf(source);
    if (!config) return undefined;
    const object = () => this.object(source.id);
    const admission = await this.deps.breakers.admit(source.id, object, probeLeaseMs(config.timeoutMs));
    if (!admission.allowed) {
      throw new AppError("unavailable", circuitOpenMessage(source.slug, admission.retryAfterMs), {
        details: { retry_after_ms: admission.retryAfterMs },
      });
    }
    const started = Date.now();
    const attempt = await withRetries(() => this.ask(config, use), true);
    const failure = "failure" in attempt ? attempt.failure : undefined;
    const report = { at: started, ms: Date.now() - started, error: failure ? `${failure.type}: ${failure.message}` : null };
    this.deps.breakers.record(
      source.id,
      { ...report, breaker: breakerEffect(failure), probe: admission.probe },
      object,
      this.deps.waitUntil,
    );
    if (failure) throw new AppError("unavailable", `source ${source.slug} did not answer: ${failure.message}`);
    return "value" in attempt ? attempt.value : undefined;
  }

  private async ask<T>(config: UpstreamConfig, use: (open: McpClientConnection, config: UpstreamConfig) => Promise<T>): Promise<T> {
    checkUpstreamUrl(config.url, config.allowPrivateUpstreams, config.selfOrigin);
    const limits = new AnswerLimits();
    const connection = await connectMcp(upstreamEndpoint(config, limits.wrap(this.deps.upstreamFetch)), {
      clientName: GATEWAY_CLIENT_NAME,
      timeoutMs: config.timeoutMs,
      negotiation: "legacy-first",
    });
    try {
      return await use({ ...connection, answerLimits: limits }, config);
    } finally {
      await closeMcp(connection);
    }
  }

  private object(sourceId: number): SourceObject {
    const namespace = this.deps.env.GATEWAY_SOURCE;
    return namespace.get(namespace.idFromName(String(sourceId)));
  }

  private async configOf(source: CallSource): Promise<UpstreamConfig | undefined> {
    const config = await upstreamConfig(source, this.secrets, this.deps.env, this.configs);
    if (source.upstreamAuth !== "oauth") return config;
    const bearer = await this.deps.authorizer?.bearer(source);
    if (!bearer || isAuthorizationNeeded(bearer)) return undefined;
    const authorized = await withBearer(config, bearer);
    return bearerRefusal(authorized) === undefined ? authorized : undefined;
  }
}

/**
 * Discovering sources' tools: the source's Durable Object connects and lists, this service writes
 * what it found to D1 — the inventory with its aliases, the upstream's kind (stateless or
 * sessionful), the negotiated protocol version — or the error. The one writer of the inventory:
 * registration, refresh, the scheduled rediscovery and a warm connection's list_changed (handed
 * over by the object through the Worker's inventory entry point) all come through here.
 */
import { nowIso } from "../lib/clock";
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { isJsonObject } from "../lib/json";
import { log } from "../lib/log";
import type { BreakerView } from "./breaker-view";
import { type CallableToolCache, isolateCallables } from "./callable-cache";
import { secretBox, type SecretBox } from "./secrets";
import * as repo from "./sources.repo";
import { authorizationMessage, isAuthorizationNeeded, type UpstreamAuthorizer, withBearer } from "./upstream-authorization";
import { upstreamConfig } from "./upstream-config";
import { type InventoryChange, type UpstreamTool, upstreamToolsSchema } from "./upstream.types";

export interface SourceDiscoveryDeps {
  db: Db;
  env: Pick<Env, "GATEWAY_SOURCE" | "SOURCE_SECRETS_KEY" | "ALLOW_PRIVATE_UPSTREAMS">;
  /** This isolate's breaker view: a discovery's verdict on the breaker reaches it at once. */
  breakers: BreakerView;
  /** The callable tools kept (this isolate's unless a test brings its own): a new inventory drops what was looked up of its owner. */
  callables?: CallableToolCache;
  /** Sources' MCP authorization: learns an upstream's protection after a 401, and lists `oauth` sources with their owner's token. */
  authorizer?: UpstreamAuthorizer | undefined;
}

function parseTools(toolsJson: string): UpstreamTool[] {
  const parsed = upstreamToolsSchema.safeParse(JSON.parse(toolsJson));
  if (!parsed.success) throw new AppError("internal", "Source discovery returned a malformed tool list", { cause: parsed.error });
  return parsed.data;
}

export class SourceDiscovery {
  private readonly secrets: SecretBox;

  private readonly callables: CallableToolCache;
  constructor(private readonly deps: SourceDiscoveryDeps) {
    this.secrets = secretBox(deps.env.SOURCE_SECRETS_KEY);
    this.callables = deps.callables ?? isolateCallables;
  }

  /**
   * Discovers the source's tools now; returns its row as it stands afterwards. A failure is recorded
   * on it, not thrown. An upstream that answers 401 with MCP authorization is recorded as such
   * (`authorization_required`: its owner connects, then discovery runs again); an `oauth` source is
   * listed with its owner's token, refreshed once after a 401.
   */
  async discover(row: repo.SourceRow): Promise<repo.SourceRow> {
    const attemptedAt = nowIso();
    const failed = async (error: string): Promise<repo.SourceRow> => {
      await repo.recordDiscoveryError(this.deps.db, row.id, error, attemptedAt);
      return { ...row, lastDiscoveryError: error, lastDiscoveryAttemptAt: attemptedAt };
    };
    const authorizer = this.deps.authorizer;
    const needsAuthorization = (why: Parameters<typeof authorizationMessage>[1]) =>
      failed(`authorization_required: ${authorizationMessage(row.slug, why, authorizer?.connectLink(row.id))}`);
    const base = await upstreamConfig(row, this.secrets, this.deps.env);
    let config = base;
    if (row.upstreamAuth === "oauth" && authorizer) {
      const token = await authorizer.bearer(row);
      if (isAuthorizationNeeded(token)) return needsAuthorization(token);
      config = await withBearer(base, token);
    }
    let outcome = await this.object(row.id).discover(config);
    if (outcome.error?.type === "unauthorized" && authorizer) {
      if (row.upstreamAuth !== "oauth") {
        if (await authorizer.learnProtection(row)) return needsAuthorization({ state: "needs_authorization", scope: undefined });
      } else {
        const token = await authorizer.bearer(row, true);
        if (isAuthorizationNeeded(token)) return needsAuthorization(token);
        outcome = await this.object(row.id).discover(await withBearer(base, token));
      }
    }
    this.deps.breakers.set(row.id, outcome.breaker);
    if (!outcome.ok) return failed(`${outcome.error?.type ?? "protocol"}: ${outcome.error?.message ?? "discovery failed"}`);
    const discover: unknown = outcome.discoverJson === null ? null : JSON.parse(outcome.discoverJson);
    const learned: repo.LearnedUpstream = {
      upstreamKind: outcome.kind,
      protocolVersion: outcome.protocolVersion,
      discoverResult: isJsonObject(discover) ? discover : null,
    };
    const staleAt = outcome.inventoryStaleAt;
    const warnings = await this.write(row, parseTools(outcome.toolsJson), attemptedAt, staleAt, learned);
    return {
      ...row,
      ...learned,
      lastDiscoveredAt: attemptedAt,
      lastDiscoveryAttemptAt: attemptedAt,
      lastDiscoveryError: null,
      discoveryWarnings: warnings,
      inventoryStaleAt: staleAt,
    };
  }

  /** A warm sessionful connection heard list_changed and re-listed: the new list replaces the inventory. */
  async toolsChanged(change: InventoryChange): Promise<void> {
    const row = await repo.getSourceById(this.deps.db, change.sourceId);
    // Deleted meanwhile: nothing to write (the object was reset with it).
    if (!row) return;
    await this.write(row, parseTools(change.toolsJson), nowIso(), change.inventoryStaleAt);
  }

  /**
   * Scheduled rediscovery (cron): enabled sources whose last attempt is older than `intervalMs`, or
   * whose upstream cache hint has expired; at most `limit` per run. Failures are recorded on the
   * source (last_discovery_error) and logged, never thrown.
   */
  async rediscoverDue(intervalMs: number, limit: number, now = Date.now()): Promise<{ checked: number; failed: number }> {
    const due = await repo.dueForRediscovery(this.deps.db, new Date(now - intervalMs).toISOString(), new Date(now).toISOString(), limit);
    let failed = 0;
    for (const row of due) {
      try {
        if ((await this.discover(row)).lastDiscoveryError !== null) failed++;
      } catch (error) {
        failed++;
        const message = `internal: ${error instanceof AppError ? error.message : "rediscovery failed"}`;
        log.error("gateway rediscovery failed", { source_id: row.id, error: String(error) });
        await repo.recordDiscoveryError(this.deps.db, row.id, message, nowIso()).catch(() => undefined);
      }
    }
    return { checked: due.length, failed };
  }

  private object(sourceId: number) {
    const namespace = this.deps.env.GATEWAY_SOURCE;
    return namespace.get(namespace.idFromName(String(sourceId)));
  }

  private async write(
    row: Pick<repo.SourceRow, "id" | "slug" | "userId">,
    tools: readonly UpstreamTool[],
    at: string,
    staleAt: string | null,
    learned?: repo.LearnedUpstream,
  ): Promise<string[]> {
    const { warnings } = await repo.replaceTools(this.deps.db, row, tools, at, staleAt, learned);
    this.callables.forgetUser(row.userId);
    if (warnings.length > 0) log.warn("gateway alias clash", { source_id: row.id, slug: row.slug, warnings });
    return warnings;
  }
}

/**
 * Discovering sources' tools: the source's Durable Object connects and lists (refusing more tools
 * than a source may have, cleaning and bounding their text), this service writes what it found to
 * D1 — the inventory with its aliases and pins, the upstream's kind (stateless or sessionful), the
 * negotiated protocol version — or the error. The one writer of the inventory: registration,
 * refresh, the source's rediscovery alarm and a warm connection's list_changed (both handed over by
 * the object through the Worker's inventory entry point) all come through here. Every discovery
 * ends by setting the object's alarm for the next one (decision 0067). Each writes the pins of
 * decision 0049: the first successful discovery approves what it lists; later a changed definition,
 * or a tool new since, is held — not listed, not callable — until the owner approves it, and the
 * change is recorded (TOOL_DEFINITIONS). A discovery that would take the user's listed bytes past
 * their limit is refused (decision 0050).
 */
import type { EventSink } from "../../events/event-sink";
import { nowIso } from "../../lib/clock";
import type { Db } from "../../lib/db";
import { AppError } from "../../lib/errors";
import { isJsonObject } from "../../lib/json";
import { log } from "../../lib/log";
import type { BreakerView } from "../calls/breaker-view";
import type { CallableToolCache } from "../calls/callable-cache";
import { formatCount, INVENTORY_SETTINGS, type InventoryLimitVars, inventoryLimits } from "./inventory-limits";
import { secretBox, type SecretBox } from "../sources/secrets";
import * as repo from "../sources/sources.repo";
import { toolDefinitionEvents } from "./tool-definition-events";
import type { ToolDefinitionsEvent } from "./tool-definitions-event.schema";
import { hashTools, planPins } from "./tool-pins";
import * as pinsRepo from "./tool-pins.repo";
import { authorizationMessage, isAuthorizationNeeded, type UpstreamAuthorizer, withBearer } from "../authorization/upstream-authorization";
import { type OpenedConfigs, openedConfigs, upstreamConfig } from "../calls/upstream-config";
import { rediscoveryIntervalMs } from "./rediscovery-timing";
import {
  type InventoryChange,
  type RediscoveryReport,
  type RediscoveryRun,
  type UpstreamTool,
  upstreamToolsSchema,
} from "../sources/upstream.types";

export interface SourceDiscoveryDeps {
  db: Db;
  env: Pick<Env, "GATEWAY_SOURCE" | "SOURCE_SECRETS_KEY" | "ALLOW_PRIVATE_UPSTREAMS" | "SELF_ORIGIN" | "GATEWAY_REDISCOVERY_MINUTES"> &
    InventoryLimitVars;
  /** Where committed TOOL_DEFINITIONS events go at once; without it the outbox relay sends them (the cron, after its grace). */
  events?: EventSink | undefined;
  /** This isolate's breaker view: a discovery's verdict on the breaker reaches it at once. */
  breakers: BreakerView;
  /** The callable tools kept (the isolate's, workers/isolate-state.ts): a new inventory drops what was looked up of its owner. */
  callables: CallableToolCache;
  /** Opened upstream configs kept across requests (the isolate's); a service built without them (a test) keeps its own. */
  configs?: OpenedConfigs | undefined;
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
  private readonly configs: OpenedConfigs;
  constructor(private readonly deps: SourceDiscoveryDeps) {
    this.secrets = secretBox(deps.env.SOURCE_SECRETS_KEY);
    this.callables = deps.callables;
    this.configs = deps.configs ?? openedConfigs();
  }

  /**
   * Discovers the source's tools now; returns its row as it stands afterwards. A failure is recorded
   * on it, not thrown. An upstream that answers 401 with MCP authorization is recorded as such
   * (`authorization_required`: its owner connects, then discovery runs again); an `oauth` source is
   * listed with its owner's token, refreshed once after a 401. The source's next rediscovery is
   * scheduled from the outcome.
   */
  async discover(row: repo.SourceRow): Promise<repo.SourceRow> {
    const after = await this.listAndWrite(row);
    await this.scheduleNext({ sourceId: row.id, succeeded: after.lastDiscoveryError === null, inventoryStaleAt: after.inventoryStaleAt });
    return after;
  }

  /**
   * The source's alarm rang (through the inventory entry point): discover it again, unless it was
   * deleted or disabled meanwhile. Failures are recorded on the source and back off, never thrown.
   */
  async rediscover(sourceId: number): Promise<RediscoveryRun> {
    const row = await repo.getSourceById(this.deps.db, sourceId);
    if (!row) return "gone";
    if (!row.enabled) return "disabled";
    try {
      await this.discover(row);
    } catch (error) {
      const message = `internal: ${error instanceof AppError ? error.message : "rediscovery failed"}`;
      log.error("gateway rediscovery failed", { source_id: row.id, error: String(error) });
      await repo.recordDiscoveryError(this.deps.db, row.id, message, nowIso()).catch(() => undefined);
      await this.scheduleNext({ sourceId: row.id, succeeded: false, inventoryStaleAt: null });
    }
    return "rediscovered";
  }

  /**
   * The cron's safety net: enabled sources whose alarm is missing — never armed (sources from before
   * alarms) or long overdue — get one, at most `limit` per run: when the old schedule would have
   * rediscovered them (the last attempt + the interval), or now. An alarm that is set stays.
   */
  async rearmMissingAlarms(limit: number, overdueMs: number, now = Date.now()): Promise<{ rearmed: number; failed: number }> {
    const { db, env } = this.deps;
    const intervalMs = rediscoveryIntervalMs(env.GATEWAY_REDISCOVERY_MINUTES);
    const missing = await repo.missingRediscoveryAlarm(db, new Date(now - overdueMs).toISOString(), limit);
    let failed = 0;
    for (const { id, lastDiscoveryAttemptAt } of missing) {
      const lastAttempt = lastDiscoveryAttemptAt === null ? Number.NaN : Date.parse(lastDiscoveryAttemptAt);
      const due = Number.isNaN(lastAttempt) ? now : Math.max(now, lastAttempt + intervalMs);
      try {
        const at = await this.object(id).ensureRediscovery(id, due);
        await repo.setRediscoverAt(db, id, new Date(at).toISOString());
      } catch (error) {
        failed++;
        log.error("gateway rediscovery re-arm failed", { source_id: id, error: String(error) });
      }
    }
    return { rearmed: missing.length - failed, failed };
  }

  /** Sets the object's alarm and notes its time in D1; if that fails, the cron's safety net re-arms the source. */
  private async scheduleNext(report: RediscoveryReport): Promise<void> {
    try {
      const at = await this.object(report.sourceId).scheduleRediscovery(report);
      await repo.setRediscoverAt(this.deps.db, report.sourceId, new Date(at).toISOString());
    } catch (error) {
      log.warn("gateway rediscovery not scheduled", { source_id: report.sourceId, error: String(error) });
    }
  }

  private async listAndWrite(row: repo.SourceRow): Promise<repo.SourceRow> {
    const attemptedAt = nowIso();
    const failed = async (error: string): Promise<repo.SourceRow> => {
      await repo.recordDiscoveryError(this.deps.db, row.id, error, attemptedAt);
      return { ...row, lastDiscoveryError: error, lastDiscoveryAttemptAt: attemptedAt };
    };
    const authorizer = this.deps.authorizer;
    const needsAuthorization = (why: Parameters<typeof authorizationMessage>[1]) =>
      failed(`authorization_required: ${authorizationMessage(row.slug, why, authorizer?.connectLink(row.id))}`);
    const base = await upstreamConfig(row, this.secrets, this.deps.env, this.configs);
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
    const written = await this.write(row, parseTools(outcome.toolsJson), attemptedAt, staleAt, learned);
    if ("refused" in written) return failed(written.refused);
    return {
      ...row,
      ...learned,
      lastDiscoveredAt: attemptedAt,
      lastDiscoveryAttemptAt: attemptedAt,
      lastDiscoveryError: null,
      discoveryWarnings: written.warnings,
      inventoryStaleAt: staleAt,
    };
  }

  /** A warm sessionful connection heard list_changed and re-listed: the new list replaces the inventory. */
  async toolsChanged(change: InventoryChange): Promise<void> {
    const row = await repo.getSourceById(this.deps.db, change.sourceId);
    // Deleted meanwhile: nothing to write (the object was reset with it).
    if (!row) return;
    const at = nowIso();
    const written = await this.write(row, parseTools(change.toolsJson), at, change.inventoryStaleAt);
    if ("refused" in written) await repo.recordDiscoveryError(this.deps.db, row.id, written.refused, at);
  }

  private object(sourceId: number) {
    const namespace = this.deps.env.GATEWAY_SOURCE;
    return namespace.get(namespace.idFromName(String(sourceId)));
  }

  /**
   * Writes the new inventory with its pins and their events, unless it would take the owner's
   * listed bytes past their limit: then nothing is written and the refusal says why. Returns the
   * source's warnings (alias clashes, text cleaned or shortened).
   */
  private async write(
    row: Pick<repo.SourceRow, "id" | "slug" | "userId" | "lastDiscoveredAt">,
    listed: readonly UpstreamTool[],
    at: string,
    staleAt: string | null,
    learned?: repo.LearnedUpstream,
  ): Promise<{ warnings: string[] } | { refused: string }> {
    const { db } = this.deps;
    const limits = inventoryLimits(this.deps.env);
    const tools = await hashTools(listed);
    const [besides, previous, pins] = await Promise.all([
      repo.listedBytesBeside(db, row.userId, row.id),
      repo.toolsOf(db, row.id),
      pinsRepo.pinsOf(db, row.id),
    ]);
    const bytes = tools.reduce((sum, tool) => sum + tool.bytes, 0);
    if (besides + bytes > limits.listedBytesPerUser) {
      return { refused: overListedBytes(row.slug, bytes, besides, limits.listedBytesPerUser) };
    }

    const previousHashes = new Map(previous.map((tool) => [tool.name, tool.definitionHash]));
    const plan = await planPins(tools, pins, previousHashes, row.lastDiscoveredAt === null, limits);
    const act = { userId: row.userId, source: { id: row.id, slug: row.slug }, at };
    const events = plan.approveAll
      ? toolDefinitionEvents({
          ...act,
          action: "approved",
          via: "registration",
          tools: tools.map(({ tool, hash }) => ({ name: tool.name, change: null, hash, approvedHash: null })),
        })
      : toolDefinitionEvents({ ...act, action: "held", via: "discovery", tools: plan.detected });
    const cleaned = listed.filter((tool) => tool.warnings.length > 0).length;
    const { warnings } = await repo.replaceTools(db, row, {
      tools,
      previous,
      discoveredAt: at,
      staleAt,
      learned,
      warnings: cleaned > 0 ? [`${formatCount(cleaned)} of its tools had text removed or shortened; each tool's warnings say what`] : [],
      after: [
        ...(plan.approveAll ? [pinsRepo.approveInventory(row.id, at)] : []),
        ...plan.adopt.map(({ name, hash }) => pinsRepo.adoptLegacyPin(db, row.id, name, hash)),
        pinsRepo.dropGonePins(db, row.id),
        ...events.map((event) => pinsRepo.insertOutboxEvent(db, event)),
      ],
    });
    this.callables.forgetUser(row.userId);
    this.publish(events);
    if (plan.detected.length > 0) {
      log.warn("gateway tool definitions held", { source_id: row.id, slug: row.slug, tools: plan.detected.length });
    }
    if (warnings.length > 0) log.warn("gateway discovery warnings", { source_id: row.id, slug: row.slug, warnings });
    return { warnings };
  }

  /** Committed events go to the queue now, at most 100 to a batch; a failed send is left to the outbox relay. */
  private publish(events: readonly ToolDefinitionsEvent[]): void {
    for (let i = 0; i < events.length; i += 100) this.deps.events?.publish(events.slice(i, i + 100));
  }
}

function overListedBytes(slug: string, bytes: number, besides: number, limit: number): string {
  const { setting } = INVENTORY_SETTINGS.listedBytesPerUser;
  return (
    `limit_exceeded: the tools of ${slug} take ${formatCount(bytes)} bytes; with the ${formatCount(besides)} bytes ` +
    `of your other sources' tools that passes the ${formatCount(limit)} bytes your sources may list (${setting}); ` +
    "the inventory was left as it was"
  );
}

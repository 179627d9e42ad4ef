/**
 * The gateway domain: registering upstream sources, discovering their tools, naming them on /mcp
 * (aliases), per-user hiding, health and routing calls to each source's Durable Object. Knows
 * nothing of HTTP or MCP; REST routes, the admin tools and the /mcp server all call it.
 */
import type { GatewaySource } from "../../durable-objects/source.do";
import type { StoredEnvVar } from "../../d1/schema";
import { nowIso } from "../lib/clock";
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import type { BuiltinCall, GatewayAuditSink } from "./gateway-audit";
import { aggregateHealth, type HealthCounts, sourceHealth } from "./health";
import * as hiddenRepo from "./hidden-tools.repo";
import { checkManifest, checkVarNames, type ManifestCheck, requireBridgeToken, storableManifest, type Transport, type VarSpec } from "./registration";
import { secretBox, type SecretBox } from "./secrets";
import * as repo from "./sources.repo";
import {
  type CreateSourceInput,
  type EnvVarInput,
  GATEWAY_SEPARATOR,
  type SourceHealth,
  slugify,
  type SourceView,
  type UpdateSourceInput,
} from "./sources.schema";
import { type UpstreamCallOutcome, type UpstreamConfig, upstreamToolsSchema } from "./upstream.types";
import { assertSafeUpstreamUrl, privateUpstreamsAllowed } from "./url-safety";

export interface GatewayEnv {
  GATEWAY_SOURCE: DurableObjectNamespace<GatewaySource>;
  SOURCE_SECRETS_KEY?: string | undefined;
  ALLOW_PRIVATE_UPSTREAMS?: string | undefined;
}

export interface SourceServiceDeps {
  db: Db;
  env: GatewayEnv;
  audit: GatewayAuditSink;
}

export interface SourceToolView {
  name: string;
  alias: string;
  gateway_name: string;
  aliases: string[];
  hidden: boolean;
  description: string;
  annotations: Record<string, unknown>;
}

export interface SourceDetail {
  source: SourceView;
  tools: SourceToolView[];
}

export interface HiddenTool {
  name: string;
  source_id: number | null;
}

/** The sealing name of a stdio source's bridge token: `:` never occurs in a variable name, so it cannot collide. */
const BRIDGE_TOKEN_KEY = ":bridge_token";
const STDIO_ONLY = ["mcp_command", "mcp_args", "mcp_runtime_hint", "manifest", "bridge_token"] as const;

export function gatewayName(slug: string, alias: string): string {
  return `${slug}${GATEWAY_SEPARATOR}${alias}`;
}

/** `<slug>__<alias>` split at the first separator (a slug never contains `__`); undefined for built-in names. */
export function splitGatewayName(name: string): { slug: string; alias: string } | undefined {
  const at = name.indexOf(GATEWAY_SEPARATOR);
  if (at <= 0) return undefined;
  return { slug: name.slice(0, at), alias: name.slice(at + GATEWAY_SEPARATOR.length) };
}

function toView(row: repo.SourceRow, toolCount: number): SourceView {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    source_type: row.sourceType,
    url: row.mcpServerUrl,
    mcp_server_url: row.mcpServerUrl,
    mcp_transport_type: row.mcpTransportType,
    mcp_lifecycle_mode: row.mcpLifecycleMode,
    // Secret values never leave the service, not even encrypted.
    mcp_env_vars: row.mcpEnvVars.map((v) => (v.secret ? { name: v.name, secret: true } : { name: v.name, secret: false, value: v.value })),
    mcp_command: row.mcpCommand,
    mcp_args: row.mcpArgs,
    mcp_runtime_hint: row.mcpRuntimeHint,
    manifest: row.manifest,
    has_bridge_token: row.bridgeToken !== null,
    timeout_ms: row.timeoutMs,
    enabled: row.enabled,
    hidden: row.hidden,
    tool_count: toolCount,
    last_discovered_at: row.lastDiscoveredAt,
    last_discovery_error: row.lastDiscoveryError,
    warnings: row.discoveryWarnings,
    inventory_stale_at: row.inventoryStaleAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function refuseStdioFields(transport: Transport, input: Partial<Record<(typeof STDIO_ONLY)[number], unknown>>): void {
  if (transport === "stdio") return;
  const given = STDIO_ONLY.find((field) => input[field] !== undefined);
  if (given) throw AppError.invalid(`${given} is for stdio sources only (mcp_transport_type stdio)`, given);
}

export class SourceService {
  private readonly secrets: SecretBox;

  constructor(private readonly deps: SourceServiceDeps) {
    this.secrets = secretBox(deps.env.SOURCE_SECRETS_KEY);
  }

  private checkUrl(url: string): string {
    return assertSafeUpstreamUrl(url, privateUpstreamsAllowed(this.deps.env)).toString();
  }

  /** Seals secrets; a variable the manifest marks secret is sealed even when sent as not secret. */
  private async sealEnvVars(userId: number, vars: readonly EnvVarInput[], forceSecret: ReadonlySet<string>): Promise<StoredEnvVar[]> {
    return Promise.all(
      vars.map(async (v) => {
        const secret = v.secret || forceSecret.has(v.name);
        return { name: v.name, secret, value: secret ? await this.secrets.seal(userId, v.name, v.value) : v.value };
      }),
    );
  }

  private stub(sourceId: number) {
    const namespace = this.deps.env.GATEWAY_SOURCE;
    return namespace.get(namespace.idFromName(String(sourceId)));
  }

  /** What the Durable Object needs (contract C3): remote env vars become headers, stdio ones the process env. */
  private async config(row: repo.SourceRow): Promise<UpstreamConfig> {
    const values: Record<string, string> = {};
    for (const v of row.mcpEnvVars) values[v.name] = v.secret ? await this.secrets.open(row.userId, v.name, v.value) : v.value;
    const stdio = row.mcpTransportType === "stdio";
    const headers = stdio ? {} : values;
    if (stdio && row.bridgeToken) headers["Authorization"] = `Bearer ${await this.secrets.open(row.userId, BRIDGE_TOKEN_KEY, row.bridgeToken)}`;
    const env = stdio ? values : {};
    return {
      sourceId: row.id,
      slug: row.slug,
      url: row.mcpServerUrl,
      transport: row.mcpTransportType,
      headers,
      env,
      lifecycle: row.mcpLifecycleMode,
      timeoutMs: row.timeoutMs,
      fingerprint: await sha256Hex(JSON.stringify([row.mcpServerUrl, row.mcpTransportType, headers, env])),
    };
  }

  private async owned(userId: number, id: number): Promise<repo.SourceRow> {
    const row = await repo.getSource(this.deps.db, userId, id);
    if (!row) throw AppError.notFound("Source", id);
    return row;
  }

  private manifestFor(raw: Record<string, unknown> | null | undefined, transport: Transport, vars: readonly VarSpec[]): ManifestCheck | undefined {
    return raw ? checkManifest(raw, transport, vars) : undefined;
  }

  /** Creates the source and discovers its tools; a failed discovery is reported, not fatal. */
  async create(userId: number, input: CreateSourceInput): Promise<SourceDetail> {
    const transport = input.mcp_transport_type;
    refuseStdioFields(transport, input);
    checkVarNames(transport, input.mcp_env_vars);
    requireBridgeToken(transport, input.bridge_token !== undefined);
    const manifest = this.manifestFor(input.manifest, transport, input.mcp_env_vars);
    const url = this.checkUrl((input.url ?? input.mcp_server_url)!);
    const row = await repo.insertSource(this.deps.db, {
      userId,
      name: input.name,
      slug: slugify(input.name),
      sourceType: "mcp",
      mcpServerUrl: url,
      mcpTransportType: transport,
      mcpLifecycleMode: input.mcp_lifecycle_mode,
      mcpEnvVars: await this.sealEnvVars(userId, input.mcp_env_vars, manifest?.secretNames ?? new Set()),
      mcpCommand: input.mcp_command ?? manifest?.launch.command ?? null,
      mcpArgs: input.mcp_args ?? manifest?.launch.args ?? [],
      mcpRuntimeHint: input.mcp_runtime_hint ?? manifest?.launch.runtimeHint ?? null,
      manifest: input.manifest && manifest ? storableManifest(input.manifest, manifest.secretNames) : null,
      bridgeToken: input.bridge_token !== undefined ? await this.secrets.seal(userId, BRIDGE_TOKEN_KEY, input.bridge_token) : null,
      timeoutMs: input.timeout_ms,
      enabled: input.enabled,
      hidden: input.hidden,
    });
    return this.discover(row);
  }

  async list(userId: number): Promise<{ sources: SourceView[]; count: number }> {
    const rows = await repo.listSources(this.deps.db, userId);
    return { sources: rows.map((row) => toView(row, row.toolCount)), count: rows.length };
  }

  async get(userId: number, id: number): Promise<SourceDetail> {
    return this.detail(await this.owned(userId, id));
  }

  private async detail(row: repo.SourceRow): Promise<SourceDetail> {
    const [tools, aliases, hidden] = await Promise.all([
      repo.toolsOf(this.deps.db, row.id),
      repo.aliasesOf(this.deps.db, row.id),
      hiddenRepo.listHidden(this.deps.db, row.userId),
    ]);
    const hiddenAliases = new Set(hidden.filter((h) => h.sourceId === row.id).map((h) => h.tool));
    return {
      source: toView(row, tools.length),
      tools: tools.map((tool) => ({
        name: tool.name,
        alias: tool.alias,
        gateway_name: gatewayName(row.slug, tool.alias),
        aliases: aliases.filter((a) => a.toolName === tool.name).map((a) => gatewayName(row.slug, a.alias)),
        hidden: hiddenAliases.has(tool.alias),
        description: tool.description,
        annotations: tool.annotations,
      })),
    };
  }

  /**
   * The stored configuration merged with the change is checked as a whole (transport rules,
   * manifest). A changed url, transport, env vars or bridge token — or enabling — re-runs discovery:
   * the inventory must describe what calls will reach.
   */
  async update(userId: number, id: number, input: UpdateSourceInput): Promise<SourceDetail> {
    const row = await this.owned(userId, id);
    const transport = input.mcp_transport_type ?? row.mcpTransportType;
    refuseStdioFields(transport, input);
    const varSpecs: VarSpec[] = input.mcp_env_vars ?? row.mcpEnvVars;
    checkVarNames(transport, varSpecs);
    const stdio = transport === "stdio";
    requireBridgeToken(transport, input.bridge_token !== undefined || row.bridgeToken !== null);
    // The stored manifest is checked again only when what it constrains changes (its stored copy
    // lacks secret defaults, so re-checking an untouched source could fail on them).
    const recheck = input.manifest !== undefined || input.mcp_env_vars !== undefined || input.mcp_transport_type !== undefined;
    const rawManifest = stdio && recheck ? (input.manifest ?? row.manifest) : null;
    const manifest = this.manifestFor(rawManifest, transport, varSpecs);
    const forceSecret = manifest?.secretNames ?? new Set<string>();

    let envVars: StoredEnvVar[] | undefined;
    if (input.mcp_env_vars !== undefined) envVars = await this.sealEnvVars(userId, input.mcp_env_vars, forceSecret);
    else if (row.mcpEnvVars.some((v) => !v.secret && forceSecret.has(v.name))) {
      // A new manifest marks a stored plain variable secret: seal it now, it must not stay readable.
      envVars = await this.sealEnvVars(userId, row.mcpEnvVars, forceSecret);
    }
    const newUrl = input.url ?? input.mcp_server_url;
    const patch: repo.SourcePatch = {
      ...(input.name !== undefined ? { name: input.name, slug: slugify(input.name) } : {}),
      ...(newUrl !== undefined ? { mcpServerUrl: this.checkUrl(newUrl) } : {}),
      ...(input.mcp_transport_type !== undefined ? { mcpTransportType: input.mcp_transport_type } : {}),
      ...(input.mcp_lifecycle_mode !== undefined ? { mcpLifecycleMode: input.mcp_lifecycle_mode } : {}),
      ...(envVars !== undefined ? { mcpEnvVars: envVars } : {}),
      ...(input.mcp_command !== undefined ? { mcpCommand: input.mcp_command } : {}),
      ...(input.mcp_args !== undefined ? { mcpArgs: input.mcp_args } : {}),
      ...(input.mcp_runtime_hint !== undefined ? { mcpRuntimeHint: input.mcp_runtime_hint } : {}),
      ...(input.manifest !== undefined && manifest
        ? {
            manifest: storableManifest(input.manifest, manifest.secretNames),
            mcpCommand: input.mcp_command ?? manifest.launch.command,
            mcpArgs: input.mcp_args ?? manifest.launch.args,
            mcpRuntimeHint: input.mcp_runtime_hint ?? manifest.launch.runtimeHint,
          }
        : {}),
      ...(input.bridge_token !== undefined ? { bridgeToken: await this.secrets.seal(userId, BRIDGE_TOKEN_KEY, input.bridge_token) } : {}),
      // Leaving stdio drops what only stdio uses, so no stale bridge token lingers.
      ...(!stdio && row.mcpTransportType === "stdio" ? { bridgeToken: null, manifest: null, mcpCommand: null, mcpArgs: [], mcpRuntimeHint: null } : {}),
      ...(input.timeout_ms !== undefined ? { timeoutMs: input.timeout_ms } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.hidden !== undefined ? { hidden: input.hidden } : {}),
    };
    const updated = await repo.updateSource(this.deps.db, userId, id, patch, nowIso());
    if (!updated) throw AppError.notFound("Source", id);
    const reachChanged =
      newUrl !== undefined || input.mcp_env_vars !== undefined || input.mcp_transport_type !== undefined || input.bridge_token !== undefined;
    const enabledNow = input.enabled === true && !row.enabled;
    if (updated.enabled && (reachChanged || enabledNow)) return this.discover(updated);
    return this.detail(updated);
  }

  async refresh(userId: number, id: number): Promise<SourceDetail> {
    return this.discover(await this.owned(userId, id));
  }

  async remove(userId: number, id: number): Promise<void> {
    if (!(await repo.deleteSource(this.deps.db, userId, id))) throw AppError.notFound("Source", id);
    await this.stub(id).reset();
  }

  private async discover(row: repo.SourceRow): Promise<SourceDetail> {
    const attemptedAt = nowIso();
    const outcome = await this.stub(row.id).discover(await this.config(row));
    if (!outcome.ok) {
      const error = `${outcome.error?.type ?? "protocol"}: ${outcome.error?.message ?? "discovery failed"}`;
      await repo.recordDiscoveryError(this.deps.db, row.id, error, attemptedAt);
      return this.detail({ ...row, lastDiscoveryError: error, lastDiscoveryAttemptAt: attemptedAt });
    }
    const parsed = upstreamToolsSchema.safeParse(JSON.parse(outcome.toolsJson));
    if (!parsed.success) throw new AppError("internal", "Source discovery returned a malformed tool list", { cause: parsed.error });
    const staleAt = outcome.inventoryStaleAt;
    const { warnings } = await repo.replaceTools(this.deps.db, row, parsed.data, attemptedAt, staleAt);
    if (warnings.length > 0) log.warn("gateway alias clash", { source_id: row.id, slug: row.slug, warnings });
    return this.detail({
      ...row,
      lastDiscoveredAt: attemptedAt,
      lastDiscoveryAttemptAt: attemptedAt,
      lastDiscoveryError: null,
      discoveryWarnings: warnings,
      inventoryStaleAt: staleAt,
    });
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
        const { source } = await this.discover(row);
        if (source.last_discovery_error !== null) failed++;
      } catch (error) {
        failed++;
        const message = `internal: ${error instanceof AppError ? error.message : "rediscovery failed"}`;
        log.error("gateway rediscovery failed", { source_id: row.id, error: String(error) });
        await repo.recordDiscoveryError(this.deps.db, row.id, message, nowIso()).catch(() => undefined);
      }
    }
    return { checked: due.length, failed };
  }

  /** The tools /mcp lists for the user, straight from D1: no upstream round trip. */
  async inventory(userId: number): Promise<repo.InventoryRow[]> {
    return repo.listedInventory(this.deps.db, userId);
  }

  /** The tool a gateway name calls (its own alias or a kept alias of a renamed tool), unless hidden, disabled or foreign. */
  async resolve(userId: number, name: string): Promise<repo.InventoryRow | undefined> {
    const parts = splitGatewayName(name);
    return parts ? repo.findCallableTool(this.deps.db, userId, parts.slug, parts.alias) : undefined;
  }

  /** Calls `<slug>__<alias>` on its source's Durable Object and records the audit event. */
  async call(userId: number, name: string, args: Record<string, unknown>): Promise<UpstreamCallOutcome> {
    const found = await this.resolve(userId, name);
    if (!found) throw new AppError("not_found", `Tool ${name} not found; it may be hidden or belong to a disabled or deleted source`);
    const { source, tool } = found;
    const started = Date.now();
    const result = await this.stub(source.id).callTool(await this.config(source), {
      name: tool.name,
      argumentsJson: JSON.stringify(args),
      idempotent: tool.annotations["idempotentHint"] === true,
    });
    this.deps.audit.record({
      userId,
      sourceId: source.id,
      sourceSlug: source.slug,
      tool: tool.name,
      durationMs: Date.now() - started,
      outcome: result.meta.error_type ?? "ok",
    });
    return result;
  }

  /** A call of a built-in tool on /mcp: audited like a source's, as `builtin:<server>`. */
  recordBuiltinCall(call: BuiltinCall): void {
    this.deps.audit.recordBuiltin(call);
  }

  // ---- per-user hiding ---------------------------------------------------------------------

  async hiddenTools(userId: number): Promise<{ hidden_tools: HiddenTool[]; count: number }> {
    const rows = await hiddenRepo.listHidden(this.deps.db, userId);
    const hidden_tools = rows.map((row) => ({ name: row.slug === null ? row.tool : gatewayName(row.slug, row.tool), source_id: row.sourceId }));
    return { hidden_tools, count: hidden_tools.length };
  }

  async hiddenBuiltins(userId: number): Promise<Set<string>> {
    return hiddenRepo.hiddenBuiltins(this.deps.db, userId);
  }

  /**
   * Which hidden-tool entry a name means: a built-in (one of `builtins`) or a tool of one of the
   * user's own sources, by its alias or a kept alias (stored under the tool's own alias, so the
   * entry follows the tool). Anything else — including another user's tools — is not found.
   */
  private async hiddenKey(userId: number, name: string, builtins: ReadonlySet<string>): Promise<{ sourceId: number | null; tool: string; name: string }> {
    if (builtins.has(name)) return { sourceId: null, tool: name, name };
    const parts = splitGatewayName(name);
    const source = parts ? await repo.getSourceBySlug(this.deps.db, userId, parts.slug) : undefined;
    if (parts && source) {
      const [tools, aliases] = await Promise.all([repo.toolsOf(this.deps.db, source.id), repo.aliasesOf(this.deps.db, source.id)]);
      const target = aliases.find((a) => a.alias === parts.alias)?.toolName;
      const tool = tools.find((t) => t.alias === parts.alias) ?? tools.find((t) => t.name === target);
      if (tool) return { sourceId: source.id, tool: tool.alias, name: gatewayName(source.slug, tool.alias) };
    }
    throw new AppError("not_found", `Tool ${name} not found: give a built-in tool's name or <source_slug>__<tool> of one of your sources`, {
      details: { field: "name" },
    });
  }

  async hideTool(userId: number, name: string, builtins: ReadonlySet<string>): Promise<{ hidden: boolean; tool: HiddenTool }> {
    const key = await this.hiddenKey(userId, name, builtins);
    await hiddenRepo.hide(this.deps.db, userId, key.sourceId, key.tool);
    return { hidden: true, tool: { name: key.name, source_id: key.sourceId } };
  }

  /** Idempotent; `hidden` is false afterwards whether or not the tool was hidden. */
  async unhideTool(userId: number, name: string, builtins: ReadonlySet<string>): Promise<{ hidden: boolean; tool: HiddenTool }> {
    const key = await this.hiddenKey(userId, name, builtins);
    await hiddenRepo.unhide(this.deps.db, userId, key.sourceId, key.tool);
    return { hidden: false, tool: { name: key.name, source_id: key.sourceId } };
  }

  // ---- health (contract C5) ----------------------------------------------------------------

  private async healthOf(row: repo.SourceRow, toolCount: number): Promise<SourceHealth> {
    return sourceHealth(row, toolCount, await this.stub(row.id).status());
  }

  async health(userId: number, id: number): Promise<SourceHealth> {
    const row = await this.owned(userId, id);
    return this.healthOf(row, (await repo.toolsOf(this.deps.db, row.id)).length);
  }

  async healthList(userId: number): Promise<{ sources: SourceHealth[]; count: number }> {
    const rows = await repo.listSources(this.deps.db, userId);
    const sources = await Promise.all(rows.map((row) => this.healthOf(row, row.toolCount)));
    return { sources, count: sources.length };
  }

  /** Counts by state over every source of the deployment (public /health: no names, no owners). */
  async healthCounts(limit: number): Promise<HealthCounts> {
    const [rows, total] = await Promise.all([repo.allSourcesWithToolCount(this.deps.db, limit), repo.countSources(this.deps.db)]);
    const states = await Promise.all(
      rows.map(async (row) => {
        try {
          return (await this.healthOf(row, row.toolCount)).state;
        } catch (error) {
          log.warn("gateway health: source status unavailable", { source_id: row.id, error: String(error) });
          return "unknown" as const;
        }
      }),
    );
    return aggregateHealth(states, total);
  }
}

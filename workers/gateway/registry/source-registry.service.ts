/**
 * The registry of gateway sources: register (transport rules, manifests — a plugin's read from its
 * bridge — and sealing the secrets), change, remove, list and show them. Every user sees and
 * changes only their own. A registration or a change of how a source is reached runs discovery
 * (source-discovery.service.ts). Knows nothing of HTTP or MCP: REST routes and admin tools call it.
 */
import type { StoredEnvVar } from "../../../d1/schema";
import { nowIso } from "../../lib/clock";
import type { Db } from "../../lib/db";
import { AppError } from "../../lib/errors";
import { assertSafeUpstreamUrl, privateUpstreamsAllowed } from "../../lib/url-safety";
import type { BreakerView } from "../calls/breaker-view";
import type { CallableToolCache } from "../calls/callable-cache";
import { type BridgePlugin, bridgeUrlOf, readBridgePlugin } from "./bridge-plugins";
import { MAX_SOURCES_SETTING, maxSourcesPerUser } from "../sources/gateway-limits";
import * as hiddenRepo from "../sources/hidden-tools.repo";
import { refuseOwnOrigin } from "../sources/own-gateway-url";
import { checkManifest, checkVarNames, type ManifestCheck, requireBridgeToken, type Transport, type VarSpec } from "./registration";
import { secretBox, type SecretBox } from "../sources/secrets";
import type { SourceDiscovery } from "../discovery/source-discovery.service";
import { countSources, countSourcesUpTo } from "./source-quota.repo";
import { type SourceDetail, toDetail, toView } from "./source-views";
import * as repo from "../sources/sources.repo";
import { type CreateSourceInput, type EnvVarInput, slugify, type SourceView, type UpdateSourceInput } from "../sources/sources.schema";
import type { UpstreamAuthorizer } from "../authorization/upstream-authorization";
import { BRIDGE_TOKEN_KEY } from "../calls/upstream-config";

export interface SourceRegistryDeps {
  db: Db;
  env: Pick<Env, "GATEWAY_SOURCE" | "SOURCE_SECRETS_KEY" | "ALLOW_PRIVATE_UPSTREAMS" | "SELF_ORIGIN" | "GATEWAY_MAX_SOURCES_PER_USER">;
  discovery: SourceDiscovery;
  breakers: BreakerView;
  /** The callable tools kept (the isolate's, workers/isolate-state.ts): a change drops its owner's. */
  callables: CallableToolCache;
  /** Deleting an OAuth source revokes its owner's upstream tokens first; a change of its URL ends its connection. */
  authorizer?: Pick<UpstreamAuthorizer, "disconnect" | "endForUrlChange"> | undefined;
  /** The origin the request registering or changing a source arrived on: it is this Worker's too, whatever SELF_ORIGIN says. */
  requestOrigin?: string | undefined;
}

const STDIO_ONLY = ["mcp_command", "mcp_args", "mcp_runtime_hint", "manifest", "bridge_token", "mcp_plugin_dir"] as const;

function refuseStdioFields(transport: Transport, input: Partial<Record<(typeof STDIO_ONLY)[number], unknown>>): void {
  if (transport === "stdio") return;
  const given = STDIO_ONLY.find((field) => input[field] !== undefined);
  if (given) throw AppError.invalid(`${given} is for stdio sources only (mcp_transport_type stdio)`, given);
}

export type { SourceDetail } from "./source-views";

function tooManySources(limit: number): AppError {
  return new AppError(
    "conflict",
    `You have ${limit} sources, the most one user may register (${MAX_SOURCES_SETTING} = ${limit}); delete one before adding another`,
    { details: { limit, setting: MAX_SOURCES_SETTING } },
  );
}

type UrlField = "url" | "mcp_server_url";

/** Which field a create or update took its URL from: the MCP endpoint is mcp_server_url when given. */
const urlFieldOf = (input: { mcp_server_url?: string | undefined }): UrlField =>
  input.mcp_server_url !== undefined ? "mcp_server_url" : "url";

export class SourceRegistry {
  private readonly secrets: SecretBox;

  private readonly callables: CallableToolCache;
  constructor(private readonly deps: SourceRegistryDeps) {
    this.secrets = secretBox(deps.env.SOURCE_SECRETS_KEY);
    this.callables = deps.callables;
  }

  /** The URL as stored, once it passes the upstream URL rules and is not on this Worker's own origin; `field` names it in a refusal. */
  private checkUrl(url: string, field: UrlField): string {
    const parsed = assertSafeUpstreamUrl(url, privateUpstreamsAllowed(this.deps.env));
    refuseOwnOrigin(parsed, [this.deps.env.SELF_ORIGIN, this.deps.requestOrigin], field);
    return parsed.toString();
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

  private async owned(userId: number, id: number): Promise<repo.SourceRow> {
    const row = await repo.getSource(this.deps.db, userId, id);
    if (!row) throw AppError.notFound("Source", id);
    return row;
  }

  private manifestFor(
    raw: Record<string, unknown> | null | undefined,
    transport: Transport,
    vars: readonly VarSpec[],
    plugin: BridgePlugin | undefined,
  ): ManifestCheck | undefined {
    return raw ? checkManifest(raw, transport, vars, plugin?.providedEnv) : undefined;
  }

  /**
   * Creates the source and discovers its tools; a failed discovery is reported, not fatal. A user
   * at GATEWAY_MAX_SOURCES_PER_USER is refused before anything is fetched or stored.
   */
  async create(userId: number, input: CreateSourceInput): Promise<SourceDetail> {
    const limit = maxSourcesPerUser(this.deps.env);
    if ((await countSources(this.deps.db, userId)) >= limit) throw tooManySources(limit);
    // The original provider's defaults: a plugin runs over stdio, anything else is streamable HTTP.
    const transport = input.mcp_transport_type ?? (input.mcp_plugin_dir !== undefined ? "stdio" : "streamable_http");
    refuseStdioFields(transport, input);
    checkVarNames(transport, input.mcp_env_vars);
    requireBridgeToken(transport, input.bridge_token !== undefined);
    // Its remote registration sends both url and mcp_server_url; the MCP endpoint is mcp_server_url.
    const url = this.checkUrl((input.mcp_server_url ?? input.url)!, urlFieldOf(input));
    const plugin =
      input.mcp_plugin_dir === undefined
        ? undefined
        : await readBridgePlugin({ bridgeUrl: url, dir: input.mcp_plugin_dir, token: input.bridge_token!, timeoutMs: input.timeout_ms });
    const manifest = this.manifestFor(plugin?.manifest ?? input.manifest, transport, input.mcp_env_vars, plugin);
    const row = await repo.insertSource(this.deps.db, {
      userId,
      name: input.name,
      slug: slugify(input.name),
      sourceType: "mcp",
      description: input.description ?? null,
      mcpServerUrl: plugin?.endpoint ?? url,
      mcpPluginDir: input.mcp_plugin_dir ?? null,
      mcpTransportType: transport,
      mcpLifecycleMode: input.mcp_lifecycle_mode,
      mcpEnvVars: await this.sealEnvVars(userId, input.mcp_env_vars, manifest?.secretNames ?? new Set()),
      mcpCommand: input.mcp_command ?? manifest?.launch.command ?? null,
      mcpArgs: input.mcp_args ?? manifest?.launch.args ?? [],
      mcpRuntimeHint: input.mcp_runtime_hint ?? manifest?.launch.runtimeHint ?? null,
      manifest: manifest?.storable ?? null,
      bridgeToken: input.bridge_token !== undefined ? await this.secrets.seal(userId, BRIDGE_TOKEN_KEY, input.bridge_token) : null,
      timeoutMs: input.timeout_ms,
      enabled: input.enabled,
      hidden: input.hidden,
    });
    // Registrations sent at once all passed the count above: the ones stored past the cap go again.
    if ((await countSourcesUpTo(this.deps.db, userId, row.id)) > limit) {
      await repo.deleteSource(this.deps.db, userId, row.id);
      throw tooManySources(limit);
    }
    return this.discover(row);
  }

  async list(userId: number): Promise<{ sources: SourceView[]; count: number }> {
    const rows = await repo.listSources(this.deps.db, userId);
    return { sources: rows.map((row) => toView(row, row.toolCount)), count: rows.length };
  }

  /** The tools /mcp lists for the user, straight from D1: no upstream round trip. */
  async listedTools(userId: number): Promise<repo.InventoryRow[]> {
    return repo.listedInventory(this.deps.db, userId);
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
    return toDetail(row, tools, aliases, new Set(hidden.filter((h) => h.sourceId === row.id).map((h) => h.tool)));
  }

  /**
   * The stored configuration merged with the change is checked as a whole (transport rules,
   * manifest — a plugin's read from its bridge again). A changed url, plugin, transport, env vars or
   * bridge token — or enabling — re-runs discovery: the inventory must describe what calls will reach.
   * A changed MCP URL (url, mcp_server_url, or a plugin or bridge whose endpoint moved) first ends
   * the source's upstream OAuth connection: a token is issued for one resource and never follows the
   * source elsewhere.
   */
  async update(userId: number, id: number, input: UpdateSourceInput): Promise<SourceDetail> {
    const row = await this.owned(userId, id);
    const transport = input.mcp_transport_type ?? row.mcpTransportType;
    refuseStdioFields(transport, input);
    const varSpecs: VarSpec[] = input.mcp_env_vars ?? row.mcpEnvVars;
    checkVarNames(transport, varSpecs);
    const stdio = transport === "stdio";
    requireBridgeToken(transport, input.bridge_token !== undefined || row.bridgeToken !== null);
    const newUrl = input.mcp_server_url ?? input.url;
    const plugin = await this.changedPlugin(row, stdio, newUrl, input);
    const pluginDir = plugin ? (input.mcp_plugin_dir ?? row.mcpPluginDir) : stdio ? row.mcpPluginDir : null;
    // An unchanged plugin is not re-checked: none of what its manifest checks (variables, reach) changed.
    const rawManifest = plugin ? plugin.manifest : pluginDir !== null ? null : stdio ? (input.manifest ?? row.manifest) : null;
    const manifest = this.manifestFor(rawManifest, transport, varSpecs, plugin);
    const forceSecret = manifest?.secretNames ?? new Set<string>();

    let envVars: StoredEnvVar[] | undefined;
    if (input.mcp_env_vars !== undefined) envVars = await this.sealEnvVars(userId, input.mcp_env_vars, forceSecret);
    else if (row.mcpEnvVars.some((v) => !v.secret && forceSecret.has(v.name))) {
      // A new manifest marks a stored plain variable secret: seal it now, it must not stay readable.
      envVars = await this.sealEnvVars(userId, row.mcpEnvVars, forceSecret);
    }
    const patch: repo.SourcePatch = {
      ...(input.name !== undefined ? { name: input.name, slug: slugify(input.name) } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(newUrl !== undefined ? { mcpServerUrl: this.checkUrl(newUrl, urlFieldOf(input)) } : {}),
      ...(plugin ? { mcpServerUrl: plugin.endpoint, mcpPluginDir: pluginDir } : {}),
      ...(input.mcp_transport_type !== undefined ? { mcpTransportType: input.mcp_transport_type } : {}),
      ...(input.mcp_lifecycle_mode !== undefined ? { mcpLifecycleMode: input.mcp_lifecycle_mode } : {}),
      ...(envVars !== undefined ? { mcpEnvVars: envVars } : {}),
      ...(input.mcp_command !== undefined ? { mcpCommand: input.mcp_command } : {}),
      ...(input.mcp_args !== undefined ? { mcpArgs: input.mcp_args } : {}),
      ...(input.mcp_runtime_hint !== undefined ? { mcpRuntimeHint: input.mcp_runtime_hint } : {}),
      ...((input.manifest !== undefined || plugin) && manifest
        ? {
            manifest: manifest.storable,
            mcpCommand: input.mcp_command ?? manifest.launch.command,
            mcpArgs: input.mcp_args ?? manifest.launch.args,
            mcpRuntimeHint: input.mcp_runtime_hint ?? manifest.launch.runtimeHint,
          }
        : {}),
      ...(input.bridge_token !== undefined ? { bridgeToken: await this.secrets.seal(userId, BRIDGE_TOKEN_KEY, input.bridge_token) } : {}),
      // Leaving stdio drops what only stdio uses, so no stale bridge token lingers.
      ...(!stdio && row.mcpTransportType === "stdio"
        ? { bridgeToken: null, manifest: null, mcpCommand: null, mcpArgs: [], mcpRuntimeHint: null, mcpPluginDir: null }
        : {}),
      ...(input.timeout_ms !== undefined ? { timeoutMs: input.timeout_ms } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.hidden !== undefined ? { hidden: input.hidden } : {}),
    };
    const stored = await repo.updateSource(this.deps.db, userId, id, patch, nowIso());
    this.callables.forgetUser(userId);
    if (!stored) throw AppError.notFound("Source", id);
    const updated = await this.endConnectionIfMoved(row, stored);
    const reachChanged =
      newUrl !== undefined ||
      input.mcp_env_vars !== undefined ||
      input.mcp_transport_type !== undefined ||
      input.bridge_token !== undefined ||
      input.mcp_plugin_dir !== undefined;
    const enabledNow = input.enabled === true && !row.enabled;
    if (updated.enabled && (reachChanged || enabledNow)) return this.discover(updated);
    return this.detail(updated);
  }

  /**
   * Before anything reaches a source's new MCP URL — its rediscovery, a call — its OAuth connection
   * ends (revoked at the old authorization server, forgotten, the source no longer marked `oauth`).
   */
  private async endConnectionIfMoved(before: repo.SourceRow, after: repo.SourceRow): Promise<repo.SourceRow> {
    if (after.mcpServerUrl === before.mcpServerUrl || !this.deps.authorizer) return after;
    await this.deps.authorizer.endForUrlChange(after.userId, after.id);
    return { ...after, upstreamAuth: "none" };
  }

  /**
   * A plugin source whose plugin, bridge, token or variables change is read from the bridge again
   * (its manifest may have changed, and the variables are checked against it); undefined otherwise.
   */
  private async changedPlugin(
    row: repo.SourceRow,
    stdio: boolean,
    newUrl: string | undefined,
    input: UpdateSourceInput,
  ): Promise<BridgePlugin | undefined> {
    const dir = stdio ? (input.mcp_plugin_dir ?? row.mcpPluginDir) : null;
    if (dir === null) return undefined;
    if (row.mcpPluginDir !== null && input.manifest !== undefined) {
      throw AppError.invalid("a plugin's manifest is read from the bridge: leave manifest out for mcp_plugin_dir sources", "manifest");
    }
    const changed =
      input.mcp_plugin_dir !== undefined || newUrl !== undefined || input.bridge_token !== undefined || input.mcp_env_vars !== undefined;
    if (!changed) return undefined;
    if (newUrl === undefined && row.mcpPluginDir === null) {
      throw AppError.invalid("url: give the base URL of the `mcp-edge bridge --plugins` serving mcp_plugin_dir", "url");
    }
    const bridgeUrl = newUrl !== undefined ? this.checkUrl(newUrl, urlFieldOf(input)) : bridgeUrlOf(row.mcpServerUrl);
    const token = input.bridge_token ?? (await this.secrets.open(row.userId, BRIDGE_TOKEN_KEY, row.bridgeToken!));
    return readBridgePlugin({ bridgeUrl, dir, token, timeoutMs: input.timeout_ms ?? row.timeoutMs });
  }

  async refresh(userId: number, id: number): Promise<SourceDetail> {
    return this.discover(await this.owned(userId, id));
  }

  async remove(userId: number, id: number): Promise<void> {
    const row = await this.owned(userId, id);
    if (row.upstreamAuth === "oauth") await this.deps.authorizer?.disconnect(userId, id, true);
    if (!(await repo.deleteSource(this.deps.db, userId, id))) throw AppError.notFound("Source", id);
    this.callables.forgetUser(userId);
    this.deps.breakers.forget(id);
    await this.stub(id).reset();
  }

  private async discover(row: repo.SourceRow): Promise<SourceDetail> {
    return this.detail(await this.deps.discovery.discover(row));
  }
}

/**
 * The gateway domain: registering upstream sources, discovering their tools and routing calls to
 * each source's Durable Object. Knows nothing of HTTP or MCP; REST routes and the /mcp server
 * both call it.
 */
import type { GatewaySource } from "../../durable-objects/source.do";
import type { StoredEnvVar } from "../../d1/schema";
import { nowIso } from "../lib/clock";
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import type { GatewayAuditSink } from "./gateway-audit";
import { secretBox, type SecretBox } from "./secrets";
import * as repo from "./sources.repo";
import {
  type CreateSourceInput,
  type EnvVarInput,
  GATEWAY_SEPARATOR,
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
  description: string;
  annotations: Record<string, unknown>;
}

export interface SourceDetail {
  source: SourceView;
  tools: SourceToolView[];
}

export function gatewayName(slug: string, alias: string): string {
  return `${slug}${GATEWAY_SEPARATOR}${alias}`;
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
    timeout_ms: row.timeoutMs,
    enabled: row.enabled,
    tool_count: toolCount,
    last_discovered_at: row.lastDiscoveredAt,
    last_discovery_error: row.lastDiscoveryError,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

function toToolView(slug: string, row: repo.SourceToolRow): SourceToolView {
  return { name: row.name, alias: row.alias, gateway_name: gatewayName(slug, row.alias), description: row.description, annotations: row.annotations };
}

function assertSupportedTransport(transport: string): void {
  if (transport !== "streamable_http") {
    throw AppError.invalid(`mcp_transport_type ${transport} is not supported yet; use streamable_http`, "mcp_transport_type");
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

export class SourceService {
  private readonly secrets: SecretBox;

  constructor(private readonly deps: SourceServiceDeps) {
    this.secrets = secretBox(deps.env.SOURCE_SECRETS_KEY);
  }

  private checkUrl(url: string): string {
    return assertSafeUpstreamUrl(url, privateUpstreamsAllowed(this.deps.env)).toString();
  }

  private async sealEnvVars(userId: number, vars: readonly EnvVarInput[]): Promise<StoredEnvVar[]> {
    return Promise.all(
      vars.map(async (v) => ({ name: v.name, secret: v.secret, value: v.secret ? await this.secrets.seal(userId, v.name, v.value) : v.value })),
    );
  }

  private stub(sourceId: number) {
    const namespace = this.deps.env.GATEWAY_SOURCE;
    return namespace.get(namespace.idFromName(String(sourceId)));
  }

  private async config(row: repo.SourceRow): Promise<UpstreamConfig> {
    const headers: Record<string, string> = {};
    for (const v of row.mcpEnvVars) headers[v.name] = v.secret ? await this.secrets.open(row.userId, v.name, v.value) : v.value;
    return {
      sourceId: row.id,
      slug: row.slug,
      url: row.mcpServerUrl,
      headers,
      lifecycle: row.mcpLifecycleMode,
      timeoutMs: row.timeoutMs,
      fingerprint: await sha256Hex(JSON.stringify([row.mcpServerUrl, headers])),
    };
  }

  private async owned(userId: number, id: number): Promise<repo.SourceRow> {
    const row = await repo.getSource(this.deps.db, userId, id);
    if (!row) throw AppError.notFound("Source", id);
    return row;
  }

  /** Creates the source and discovers its tools; a failed discovery is reported, not fatal. */
  async create(userId: number, input: CreateSourceInput): Promise<SourceDetail> {
    assertSupportedTransport(input.mcp_transport_type);
    const url = this.checkUrl((input.url ?? input.mcp_server_url)!);
    const row = await repo.insertSource(this.deps.db, {
      userId,
      name: input.name,
      slug: slugify(input.name),
      sourceType: "mcp",
      mcpServerUrl: url,
      mcpTransportType: input.mcp_transport_type,
      mcpLifecycleMode: input.mcp_lifecycle_mode,
      mcpEnvVars: await this.sealEnvVars(userId, input.mcp_env_vars),
      timeoutMs: input.timeout_ms,
      enabled: input.enabled,
    });
    return this.discover(row);
  }

  async list(userId: number): Promise<{ sources: SourceView[]; count: number }> {
    const rows = await repo.listSources(this.deps.db, userId);
    return { sources: rows.map((row) => toView(row, row.toolCount)), count: rows.length };
  }

  async get(userId: number, id: number): Promise<SourceDetail> {
    const row = await this.owned(userId, id);
    const tools = await repo.toolsOf(this.deps.db, row.id);
    return { source: toView(row, tools.length), tools: tools.map((tool) => toToolView(row.slug, tool)) };
  }

  /** A changed url or env vars re-runs discovery: the inventory must describe what calls will reach. */
  async update(userId: number, id: number, input: UpdateSourceInput): Promise<SourceDetail> {
    await this.owned(userId, id);
    if (input.mcp_transport_type) assertSupportedTransport(input.mcp_transport_type);
    const newUrl = input.url ?? input.mcp_server_url;
    const patch: repo.SourcePatch = {
      ...(input.name !== undefined ? { name: input.name, slug: slugify(input.name) } : {}),
      ...(newUrl !== undefined ? { mcpServerUrl: this.checkUrl(newUrl) } : {}),
      ...(input.mcp_transport_type !== undefined ? { mcpTransportType: input.mcp_transport_type } : {}),
      ...(input.mcp_lifecycle_mode !== undefined ? { mcpLifecycleMode: input.mcp_lifecycle_mode } : {}),
      ...(input.mcp_env_vars !== undefined ? { mcpEnvVars: await this.sealEnvVars(userId, input.mcp_env_vars) } : {}),
      ...(input.timeout_ms !== undefined ? { timeoutMs: input.timeout_ms } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    };
    const row = await repo.updateSource(this.deps.db, userId, id, patch, nowIso());
    if (!row) throw AppError.notFound("Source", id);
    if (newUrl !== undefined || input.mcp_env_vars !== undefined) return this.discover(row);
    return this.get(userId, id);
  }

  async refresh(userId: number, id: number): Promise<SourceDetail> {
    return this.discover(await this.owned(userId, id));
  }

  async remove(userId: number, id: number): Promise<void> {
    if (!(await repo.deleteSource(this.deps.db, userId, id))) throw AppError.notFound("Source", id);
    await this.stub(id).reset();
  }

  private async discover(row: repo.SourceRow): Promise<SourceDetail> {
    const outcome = await this.stub(row.id).discover(await this.config(row));
    if (outcome.ok) {
      const discoveredAt = nowIso();
      const parsed = upstreamToolsSchema.safeParse(JSON.parse(outcome.toolsJson));
      if (!parsed.success) throw new AppError("internal", "Source discovery returned a malformed tool list", { cause: parsed.error });
      const tools = await repo.replaceTools(this.deps.db, row.id, parsed.data, discoveredAt);
      const source = toView({ ...row, lastDiscoveredAt: discoveredAt, lastDiscoveryError: null }, tools.length);
      return { source, tools: tools.map((tool) => toToolView(row.slug, tool)) };
    }
    const error = `${outcome.error?.type ?? "protocol"}: ${outcome.error?.message ?? "discovery failed"}`;
    await repo.recordDiscoveryError(this.deps.db, row.id, error);
    const tools = await repo.toolsOf(this.deps.db, row.id);
    return { source: toView({ ...row, lastDiscoveryError: error }, tools.length), tools: tools.map((tool) => toToolView(row.slug, tool)) };
  }

  /** The tools /mcp lists for the user, straight from D1: no upstream round trip. */
  async inventory(userId: number): Promise<repo.InventoryRow[]> {
    return repo.enabledInventory(this.deps.db, userId);
  }

  /** Calls `<slug>__<alias>` on its source's Durable Object and records the audit event. */
  async call(userId: number, name: string, args: Record<string, unknown>): Promise<UpstreamCallOutcome> {
    const at = name.indexOf(GATEWAY_SEPARATOR);
    const found = at > 0 ? await repo.findEnabledTool(this.deps.db, userId, name.slice(0, at), name.slice(at + GATEWAY_SEPARATOR.length)) : undefined;
    if (!found) throw new AppError("not_found", `Tool ${name} not found; it may belong to a disabled or deleted source`);
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
}

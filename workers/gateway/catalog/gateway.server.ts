/**
 * The aggregated MCP endpoint /mcp: the built-in servers' tools, the gateway's admin tools and
 * every enabled source's tools of the user, named `<source_slug>__<alias>`, minus what the user
 * hid. The list comes from D1 (no upstream round trip); a call of a source's tool goes through
 * SourceCalls (the one lookup, the one call path). Every call — built-in or source — is audited
 * (GATEWAY_CALL).
 *
 * It is a server definition like any other, served by the one MCP pipeline (mcp/pipeline.ts) with
 * the same checks; what varies per user comes through the definition's two hooks:
 * - `routeCall`: a plain tools/call of a source tool is answered straight from the call path,
 *   without building the SDK server (call-fast-path.ts); the same call path runs either way.
 * - `prepare`: on the SDK path, what this request may reach (`catalogFor`), which `extend` registers.
 * Its tools differ per user, so it is never served by the built-in servers' per-isolate cached
 * listing (decision 0006); the 2026-07-28 tools/list cache hint is therefore `private` and short.
 * The built-in definitions are passed in by workers/app.ts, so this module never imports the app.
 *
 * Beyond tools (decision 0068): the built-ins' resources, templates, prompts and completions
 * (their `extend`) unchanged, and the user's sources' named for /mcp (federated-lookup.resources.ts
 * finds what a request needs, federated.resources.ts registers it); a source tool's MCP Apps
 * `_meta.ui` is listed with its resource URI named. A tools/list or tools/call registers none of it.
 *
 * tools/list is paged (decision 0051): built-ins first, then source tools, `listPageSize` per page
 * (GATEWAY_TOOLS_LIST_PAGE_SIZE) with an opaque `nextCursor` (lib/cursor.ts); only the page's tools
 * are registered for the request. A cursor this endpoint did not issue is answered -32602.
 */
import { isCallToolResult, type McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { lacking } from "../../auth/principal";
import type { Scope } from "../../auth/scopes";
import { decodeCursor, encodeCursor } from "../../lib/cursor";
import { AppError } from "../../lib/errors";
import { isJsonObject, type JsonObject } from "../../lib/json";
import type { McpPost, McpServerDefinition, RequestRefusal, RequestState } from "../../mcp/server-definition";
import { errorResult, failureResult, registerTools, SCOPES_META_KEY, type ToolContext, type ToolDefinition } from "../../mcp/tool";
import { ADMIN_TOOL_NAMES, adminTools } from "./admin.tools";
import { routeSourceCall } from "../calls/call-fast-path";
import { askToConnect } from "../authorization/connect-elicitation";
import { DEFAULT_LIST_PAGE_SIZE } from "../sources/gateway-limits";
import { gatewayName, splitGatewayName } from "../sources/gateway-names";
import { pageOf, withNextCursor } from "./list-pages";
import type { CallableTool, InventoryRow } from "../sources/sources.repo";
import type { ConnectRequest } from "../sources/upstream.types";
import { upstreamAnnotationsMeta } from "./upstream-annotations";
import { attachGatewaySkills } from "./gateway-skills.server";
import { registerFederation } from "./federated.resources";
import { type Federation, federationFor } from "./federated-lookup.resources";
import { splitGatewayUri } from "../sources/gateway-uris";
import { uiMetaNamed } from "../calls/uri-rewrite";
import type { McpMessage } from "../../mcp/post";

/** How long a 2026-07-28 client may reuse the gateway's tools/list: short, since hiding or adding a source changes it. */
export const GATEWAY_LIST_TTL_MS = 30_000;

/** Every source tool (`<slug>__<alias>`) needs this: seeing your sources and calling their tools. */
export const SOURCE_TOOL_SCOPES: readonly Scope[] = ["gateway:read"];

/** A source tool this request registers, from the listing (tools/list) or from the lookup of a call. */
interface SourceTool {
  /** Its name on /mcp (`<slug>__<alias>`, or a kept alias of a renamed tool). */
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema: JsonObject | null;
  /** The upstream's own annotations: served as its claims under `_meta`, never as the tool's annotations (upstream-annotations.ts). */
  annotations: JsonObject;
  /** Its MCP Apps `_meta` (`ui` with the resource URI named for /mcp, and the legacy flat key); undefined without a UI. */
  uiMeta?: JsonObject | undefined;
  /** Already looked up for this request (a call); absent for a listed tool, looked up when called. */
  target?: CallableTool | undefined;
}

/** What this request may reach beyond the built-ins: the request state `prepare` finds and `extend` registers. */
export interface GatewayCatalog {
  hiddenBuiltins: ReadonlySet<string>;
  /**
   * Register the built-in servers' resources, templates, prompts and completions (their `extend`):
   * for any request but a tools/list or tools/call, whose answers they cannot change.
   */
  builtinExtensions: boolean;
  /** What the request's resource, prompt and completion messages need of the user's sources (federated-lookup.resources.ts). */
  federation?: Federation | undefined;
  /** A tools/list page: the built-ins on it (absent: every built-in the user did not hide). */
  pagedBuiltins?: ReadonlySet<string> | undefined;
  sourceTools: readonly SourceTool[];
}

export interface GatewayServer {
  definition: McpServerDefinition<GatewayCatalog>;
  /** Every built-in and admin tool name: what can be hidden besides source tools, and never a source call. */
  builtinNames: ReadonlySet<string>;
  /** The same names in the order tools/list lists them (registration order), for paging. */
  builtinOrder: readonly string[];
}

/** Before any request state: what a server built to read its capabilities registers (the built-ins alone). */
const NO_CATALOG: GatewayCatalog = { hiddenBuiltins: new Set(), builtinExtensions: true, sourceTools: [] };

function listed({ source, tool }: InventoryRow): SourceTool {
  return {
    name: gatewayName(source.slug, tool.alias),
    title: tool.title ?? `${source.name}: ${tool.name}`,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
    uiMeta: uiMetaNamed(source.slug, tool.ui),
  };
}

function jsonObjectOf(text: string | null): JsonObject | null {
  const value: unknown = text === null ? null : JSON.parse(text);
  return isJsonObject(value) ? value : null;
}

function looked(name: string, target: CallableTool): SourceTool {
  const { source, tool } = target;
  return {
    name,
    title: tool.title ?? `${source.name}: ${tool.name}`,
    description: tool.description,
    inputSchema: jsonObjectOf(tool.inputSchemaJson) ?? {},
    outputSchema: jsonObjectOf(tool.outputSchemaJson),
    annotations: jsonObjectOf(tool.annotationsJson) ?? {},
    target,
  };
}

/**
 * The upstream's JSON Schema, advertised as-is. Arguments are only checked to be an object here:
 * the upstream validates them against its own schema and answers in its own words.
 */
function upstreamSchema(schema: JsonObject): StandardSchemaWithJSON<JsonObject, JsonObject> {
  return {
    "~standard": {
      version: 1,
      vendor: "mcp-edge-gateway",
      validate: (value) => (isJsonObject(value) ? { value } : { issues: [{ message: "arguments must be an object" }] }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

function registerSourceTool(server: McpServer, ctx: ToolContext, tool: SourceTool): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: upstreamSchema(tool.inputSchema),
      ...(tool.outputSchema ? { outputSchema: upstreamSchema(tool.outputSchema) } : {}),
      _meta: { ...tool.uiMeta, ...upstreamAnnotationsMeta(tool.annotations), [SCOPES_META_KEY]: [...SOURCE_TOOL_SCOPES] },
    },
    async (args: JsonObject, request) => {
      // A call the tool-call budget refused, left to the SDK's checks first (mcp/pipeline.ts): answered, never run.
      if (ctx.callRefused) return errorResult(ctx.callRefused);
      // The scope gate answered 403 before this; a second lock, as invokeTool has for built-ins.
      if (lacking(ctx.access.principal, SOURCE_TOOL_SCOPES).length > 0) {
        return errorResult(
          new AppError("forbidden", `This token does not grant ${SOURCE_TOOL_SCOPES.join(" ")}, which ${tool.name} needs`),
        );
      }
      let answer: { slug: string; result: JsonObject; connect: ConnectRequest | undefined };
      try {
        const calls = ctx.services.sourceCalls;
        const target = tool.target ?? (await calls.find(ctx.user.id, tool.name));
        if (!target)
          throw new AppError("not_found", `Tool ${tool.name} not found; it may be hidden or belong to a disabled or deleted source`);
        const outcome = await calls.call(ctx.user.id, target, args);
        answer = { slug: target.source.slug, result: outcome.result, connect: outcome.connect };
      } catch (error) {
        return failureResult(error, tool.name, ctx.user.id);
      }
      const { slug, result, connect } = answer;
      if (!isCallToolResult(result)) return errorResult(new Error(`upstream result of ${tool.name} is not a tools/call result`));
      // The owner must connect their account: offered as a URL elicitation where the revision has
      // one. Only the call path's own request to connect is asked, never anything in the result.
      return connect ? askToConnect(slug, result, connect, request) : result;
    },
  );
}

/** A built-in tool whose every run is audited as `builtin:<server>` (never with its arguments). */
function audited(tool: ToolDefinition, server: string): ToolDefinition {
  return {
    ...tool,
    async run(args, ctx, call) {
      const started = Date.now();
      let outcome: "ok" | "tool_error" = "tool_error";
      try {
        const result = await tool.run(args, ctx, call);
        outcome = "ok";
        return result;
      } finally {
        ctx.services.toolCallAudit.record({
          userId: ctx.user.id,
          sourceId: null,
          source: `builtin:${server}`,
          tool: tool.name,
          durationMs: Date.now() - started,
          outcome,
        });
      }
    },
  };
}

/** The resource URI, or the prompt's name, a read, a prompt or a completion names; undefined for anything else (a list). */
function namedItem({ method, params }: McpMessage): { uri: string } | { prompt: string } | undefined {
  if (!isJsonObject(params)) return undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  if (method === "resources/read") return { uri: text(params["uri"]) };
  if (method === "prompts/get") return { prompt: text(params["name"]) };
  if (method === "completion/complete" && isJsonObject(params["ref"])) {
    const ref = params["ref"];
    return ref["type"] === "ref/prompt" ? { prompt: text(ref["name"]) } : { uri: text(ref["uri"]) };
  }
  return undefined;
}

/**
 * The scopes a resource, prompt or completion message needs on /mcp: a source's item (`<slug>__…`)
 * gateway:read; a built-in's its own server's `extensionScopes`, found by the names it declares; a
 * list, or a name nobody serves, nothing here — a list shows only what the token may read (`extend`),
 * and the SDK answers an unknown name "not found".
 */
function extensionScopesFor(message: McpMessage, builtins: readonly McpServerDefinition[]): readonly Scope[] {
  const item = namedItem(message);
  if (!item) return [];
  if ("uri" in item ? splitGatewayUri(item.uri) !== undefined : splitGatewayName(item.prompt) !== undefined) return SOURCE_TOOL_SCOPES;
  const owner = builtins.find(({ extensionNames: names }) =>
    "uri" in item ? names?.uriPrefixes.some((prefix) => item.uri.startsWith(prefix)) : names?.prompts.includes(item.prompt),
  );
  return owner?.extensionScopes ?? [];
}

/** Every built-in tool name /mcp serves (the built-in servers' and the admin tools): what can be hidden besides source tools. */
export function gatewayBuiltinNames(builtins: readonly McpServerDefinition[]): ReadonlySet<string> {
  return new Set([...builtins.flatMap((definition) => definition.tools.map((tool) => tool.name)), ...ADMIN_TOOL_NAMES]);
}

export function createGatewayServer(builtins: readonly McpServerDefinition[], options: { listPageSize?: number } = {}): GatewayServer {
  const builtinNames = gatewayBuiltinNames(builtins);
  const tools = [
    ...builtins.flatMap((definition) => definition.tools.map((tool) => audited(tool, definition.name))),
    ...adminTools(builtinNames).map((tool) => audited(tool, "gateway")),
  ];
  const builtinScopes = new Map(tools.map((tool) => [tool.name, tool.scopes]));
  const builtinOrder = tools.map((tool) => tool.name);
  const listPageSize = options.listPageSize ?? DEFAULT_LIST_PAGE_SIZE;
  const builtinSkills = builtins.flatMap((definition) => definition.skills ?? []);
  const definition: McpServerDefinition<GatewayCatalog> = {
    name: "gateway",
    route: "/mcp",
    version: "0.2.0",
    instructions:
      "One endpoint for every tool you can use: the built-in task, RAG and thinking tools, the tools of the MCP servers you registered as sources (named <source>__<tool>), and gateway_* tools to manage those sources, their health and which tools you hide. Their resources and prompts are here too: a source's prompt is <source>__<name>, and its resource URIs carry <source>__ right after the scheme.",
    // Registered per request in `extend`: which built-ins are listed depends on the user's hidden tools.
    tools: [],
    // The sources' resources and prompts are the user's too: the same private, short hint (decision 0068).
    cacheHints: {
      "tools/list": { ttlMs: GATEWAY_LIST_TTL_MS, cacheScope: "private" },
      "resources/list": { ttlMs: GATEWAY_LIST_TTL_MS, cacheScope: "private" },
      "resources/templates/list": { ttlMs: GATEWAY_LIST_TTL_MS, cacheScope: "private" },
      "prompts/list": { ttlMs: GATEWAY_LIST_TTL_MS, cacheScope: "private" },
    },
    extensionScopesOf: (message) => extensionScopesFor(message, builtins),
    // Built-ins carry their own scopes; every other `<slug>__<alias>` is a source tool.
    toolScopes: (name) => builtinScopes.get(name) ?? (splitGatewayName(name) === undefined ? undefined : SOURCE_TOOL_SCOPES),
    routeCall: (call, ctx) => routeSourceCall(call, builtinNames, ctx),
    prepare: (post, ctx) => prepareCatalog(post, ctx, { size: listPageSize, builtinOrder }),
    extend(server, ctx, catalog = NO_CATALOG, request) {
      const { hiddenBuiltins, pagedBuiltins, sourceTools, builtinExtensions, federation } = catalog;
      // The built-ins' resources, templates and prompts, unchanged (a built-in URI or prompt name never holds `__`):
      // each server's only for a token that may read them, so a list shows nothing the token could not read.
      if (builtinExtensions) {
        for (const builtin of builtins) {
          if (lacking(ctx.access.principal, builtin.extensionScopes ?? []).length === 0) builtin.extend?.(server, ctx, undefined);
        }
      }
      if (federation) registerFederation(server, ctx, federation);
      registerTools(
        server,
        tools.filter((tool) => !hiddenBuiltins.has(tool.name) && (pagedBuiltins === undefined || pagedBuiltins.has(tool.name))),
        ctx,
      );
      for (const tool of sourceTools) registerSourceTool(server, ctx, tool);
      if (!request?.toolsOnly) attachGatewaySkills(server, ctx, builtinSkills, SOURCE_TOOL_SCOPES);
    },
  };
  return { definition, builtinNames, builtinOrder };
}

/** Where a single tools/list request's page starts (its cursor, lib/cursor.ts), or the -32602 refusing that cursor. */
function listPageOf(post: McpPost): { offset: number } | RequestRefusal | undefined {
  const message = post.batch ? undefined : post.messages[0];
  if (message?.method !== "tools/list" || message.id === undefined) return undefined;
  const { id, params } = message;
  const cursor = isJsonObject(params) && typeof params["cursor"] === "string" ? params["cursor"] : undefined;
  try {
    return { offset: decodeCursor(cursor, "tools/list") };
  } catch (error) {
    const reason = error instanceof AppError ? error.message : "cursor is not valid";
    return { kind: "error", id, status: 200, error: { code: -32602, message: `Invalid params for tools/list: ${reason}` } };
  }
}

/** The request state of /mcp's SDK path: the catalog, and a tools/list page's `nextCursor` added to the SDK's answer. */
async function prepareCatalog(
  post: McpPost,
  ctx: ToolContext,
  paging: { size: number; builtinOrder: readonly string[] },
): Promise<RequestState<GatewayCatalog> | RequestRefusal> {
  const listPage = listPageOf(post);
  if (listPage && "kind" in listPage) return listPage;
  const { next, ...state } = await catalogFor(post, ctx, listPage && { offset: listPage.offset, ...paging });
  return next === undefined ? { state } : { state, finish: (response) => withNextCursor(response, encodeCursor(next)) };
}

/**
 * What this request can reach: the built-ins the user did not hide, and — for a tools/list — every
 * listed source tool (of the page, when `page` says which), or — for a tools/call — just the
 * source tools it names (by alias or a kept alias; a hidden, disabled or foreign one stays
 * unregistered: the SDK answers "not found"). So a call costs one indexed lookup, not the whole
 * inventory.
 */
async function catalogFor(
  post: McpPost,
  ctx: ToolContext,
  page?: { offset: number; size: number; builtinOrder: readonly string[] },
): Promise<GatewayCatalog & { next?: number | undefined }> {
  const builtinExtensions = post.messages.some((message) => message.method !== "tools/list" && message.method !== "tools/call");
  // A source's resources and prompts need what its tools need; without it only the built-ins' are served.
  const withSources = lacking(ctx.access.principal, SOURCE_TOOL_SCOPES).length === 0;
  const [inventory, hiddenBuiltins, federation] = await Promise.all([
    post.listsTools ? ctx.services.sources.listedTools(ctx.user.id) : [],
    ctx.services.hiddenTools.builtins(ctx.user.id),
    builtinExtensions ? federationFor(post, ctx, withSources) : undefined,
  ]);
  if (page) {
    const visible = page.builtinOrder.filter((name) => !hiddenBuiltins.has(name));
    const listedPage = pageOf(visible, inventory.map(listed), page.offset, page.size);
    return {
      hiddenBuiltins,
      builtinExtensions,
      federation,
      pagedBuiltins: listedPage.builtins,
      sourceTools: listedPage.sourceTools,
      next: listedPage.next,
    };
  }
  const sourceTools = inventory.map(listed);
  const known = new Set(sourceTools.map((tool) => tool.name));
  const called = new Set(post.messages.flatMap((message) => message.toolName ?? []));
  for (const name of called) {
    if (known.has(name) || splitGatewayName(name) === undefined) continue;
    const target = await ctx.services.sourceCalls.find(ctx.user.id, name);
    if (target) sourceTools.push(looked(name, target));
  }
  return { hiddenBuiltins, builtinExtensions, federation, sourceTools };
}

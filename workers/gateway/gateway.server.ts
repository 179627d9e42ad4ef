/**
 * The aggregated MCP endpoint /mcp: the built-in servers' tools, the gateway's admin tools and
 * every enabled source's tools of the user, named `<source_slug>__<alias>`, minus what the user
 * hid. The list comes from D1 (no upstream round trip); a call goes to the source's Durable
 * Object through SourceService. Every call — built-in or source — is audited (GATEWAY_CALL).
 *
 * Its tools differ per user, so it is never served by the fast path's per-isolate cached listing
 * (decision 0006); the 2026-07-28 tools/list cache hint is therefore `private` and short. A plain
 * tools/call of a source tool takes the gateway's own fast path (call-fast-path.ts, decision 0013);
 * everything else is served by the SDK (serveWithSdk). The built-in definitions are passed in by workers/app.ts, so
 * this module never imports the app (no import cycle).
 */
import { isCallToolResult, type McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { lacking } from "../auth/principal";
import type { Scope } from "../auth/scopes";
import { AppError } from "../lib/errors";
import { isJsonObject, type JsonObject } from "../lib/json";
import { fastPathVersion } from "../mcp/fast-path";
import { readMcpPost, serveWithSdk } from "../mcp/hosting";
import type { McpServerDefinition } from "../mcp/server-definition";
import { errorResult, registerTools, SCOPES_META_KEY, type ToolContext, type ToolDefinition } from "../mcp/tool";
import { ADMIN_TOOL_NAMES, adminTools } from "./admin.tools";
import { answerSourceCall, asSourceCall, callFailure, type Replay } from "./call-fast-path";
import type { InventoryRow } from "./sources.repo";
import { gatewayName, splitGatewayName } from "./source-views";

/** How long a 2026-07-28 client may reuse the gateway's tools/list: short, since hiding or adding a source changes it. */
export const GATEWAY_LIST_TTL_MS = 30_000;

interface GatewayRequest {
  /** The listed source tools (loaded for tools/list only). */
  inventory: InventoryRow[];
  hiddenBuiltins: ReadonlySet<string>;
  /** Source tools this request calls that are not in `inventory` (a tools/call loads no inventory; kept aliases are never listed). */
  aliasCalls: { name: string; row: InventoryRow }[];
  /** A call the fast path already made, whose result the SDK answers (reshaped or rejected) in its own words. */
  replay?: Replay | undefined;
}

/** Every source tool (`<slug>__<alias>`) needs this: seeing your sources and calling their tools. */
export const SOURCE_TOOL_SCOPES: readonly Scope[] = ["gateway:read"];

/** Each request's catalog, keyed by that request's own context object. */
const requests = new WeakMap<ToolContext, GatewayRequest>();
/** The built-in names of each gateway definition: a call of one of them never takes the source fast path. */
const builtinNamesOf = new WeakMap<McpServerDefinition, ReadonlySet<string>>();

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

function registerSourceTool(server: McpServer, ctx: ToolContext, name: string, { source, tool }: InventoryRow): void {
  server.registerTool(
    name,
    {
      title: tool.title ?? `${source.name}: ${tool.name}`,
      description: tool.description,
      inputSchema: upstreamSchema(tool.inputSchema),
      ...(tool.outputSchema ? { outputSchema: upstreamSchema(tool.outputSchema) } : {}),
      annotations: tool.annotations,
      _meta: { [SCOPES_META_KEY]: [...SOURCE_TOOL_SCOPES] },
    },
    async (args: JsonObject) => {
      // The scope gate answered 403 before this; a second lock, as invokeTool has for built-ins.
      if (lacking(ctx.access.principal, SOURCE_TOOL_SCOPES).length > 0) {
        return errorResult(new AppError("forbidden", `This token does not grant ${SOURCE_TOOL_SCOPES.join(" ")}, which ${name} needs`));
      }
      try {
        const request = requests.get(ctx);
        const replay = request?.replay?.name === name ? request.replay : undefined;
        if (request && replay) request.replay = undefined; // answered once, never re-run
        const outcome = replay ? replay.outcome : await ctx.services.sources.call(ctx.user.id, name, args);
        const result: unknown = JSON.parse(outcome.resultJson);
        if (isCallToolResult(result)) return result;
        return errorResult(new Error(`upstream result of ${name} is not a tools/call result`));
      } catch (error) {
        return callFailure(error, name, ctx.user.id);
      }
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
        ctx.services.sources.recordBuiltinCall({ userId: ctx.user.id, server, tool: tool.name, durationMs: Date.now() - started, outcome });
      }
    },
  };
}

/** Every built-in tool name /mcp serves (the built-in servers' and the admin tools): what can be hidden besides source tools. */
export function gatewayBuiltinNames(builtins: readonly McpServerDefinition[]): ReadonlySet<string> {
  return new Set([...builtins.flatMap((definition) => definition.tools.map((tool) => tool.name)), ...ADMIN_TOOL_NAMES]);
}

export function createGatewayServer(builtins: readonly McpServerDefinition[]): McpServerDefinition {
  const builtinNames = gatewayBuiltinNames(builtins);
  const tools = [
    ...builtins.flatMap((definition) => definition.tools.map((tool) => audited(tool, definition.name))),
    ...adminTools(builtinNames).map((tool) => audited(tool, "gateway")),
  ];
  const builtinScopes = new Map(tools.map((tool) => [tool.name, tool.scopes]));
  const definition: McpServerDefinition = {
    name: "gateway",
    route: "/mcp",
    version: "0.2.0",
    instructions:
      "One endpoint for every tool you can use: the built-in task, RAG and thinking tools, the tools of the MCP servers you registered as sources (named <source>__<tool>), and gateway_* tools to manage those sources, their health and which tools you hide.",
    // Registered per request in `extend`: which built-ins are listed depends on the user's hidden tools.
    tools: [],
    cacheHints: { "tools/list": { ttlMs: GATEWAY_LIST_TTL_MS, cacheScope: "private" } },
    // Built-ins carry their own scopes; every other `<slug>__<alias>` is a source tool.
    toolScopes: (name) => builtinScopes.get(name) ?? (splitGatewayName(name) === undefined ? undefined : SOURCE_TOOL_SCOPES),
    extend: (server, ctx) => {
      const request = requests.get(ctx);
      const hidden = request?.hiddenBuiltins ?? new Set<string>();
      registerTools(
        server,
        tools.filter((tool) => !hidden.has(tool.name)),
        ctx,
      );
      for (const row of request?.inventory ?? []) registerSourceTool(server, ctx, gatewayName(row.source.slug, row.tool.alias), row);
      for (const { name, row } of request?.aliasCalls ?? []) registerSourceTool(server, ctx, name, row);
    },
  };
  builtinNamesOf.set(definition, builtinNames);
  return definition;
}

function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

/** The tool names a JSON-RPC body (one message or a batch) calls. */
function calledTools(body: unknown): string[] {
  return messagesOf(body).flatMap((message) =>
    isJsonObject(message) && message["method"] === "tools/call" && isJsonObject(message["params"]) && typeof message["params"]["name"] === "string"
      ? [message["params"]["name"]]
      : [],
  );
}

/** Only a tools/list needs every source tool; anything unreadable here is served with the full catalog to be safe. */
function listsTools(body: unknown): boolean {
  return body === undefined || messagesOf(body).some((message) => !isJsonObject(message) || message["method"] === "tools/list");
}

/**
 * Registers what this request can reach: the built-ins the user did not hide, and — for a
 * tools/list — every listed source tool, or — for a tools/call — just the source tools it names
 * (by alias or a kept alias; a hidden, disabled or foreign one stays unregistered: "not found").
 * So a call costs one indexed lookup, not the whole inventory.
 */
export async function serveGateway(
  request: Request,
  definition: McpServerDefinition,
  ctx: ToolContext,
  /** `fastPath: false` serves with the SDK alone: the reference test/gateway/call-fast-path.test.ts compares with. */
  options: { fastPath?: boolean } = {},
): Promise<Response> {
  // A context object of this request alone, so the catalog keyed by it cannot reach another request.
  const requestCtx: ToolContext = { user: ctx.user, services: ctx.services, access: ctx.access };
  let body: unknown;
  let forward = request;
  if (request.method === "POST") {
    const post = await readMcpPost(request, definition, requestCtx);
    if ("refusal" in post) return post.refusal;
    ({ request: forward, body } = post); // body undefined: the SDK answers malformed JSON in its own words
  }
  let replay: Replay | undefined;
  const builtins = builtinNamesOf.get(definition);
  const call = options.fastPath !== false && builtins && body !== undefined && fastPathVersion(request) ? asSourceCall(body, builtins) : undefined;
  if (call) {
    const answer = await answerSourceCall(call, ctx);
    if (answer && "response" in answer) return answer.response;
    replay = answer?.replay;
  }
  const sources = ctx.services.sources;
  const [inventory, hiddenBuiltins] = await Promise.all([
    listsTools(body) ? sources.inventory(ctx.user.id) : [],
    sources.hidden.builtins(ctx.user.id),
  ]);
  const listed = new Set(inventory.map((row) => gatewayName(row.source.slug, row.tool.alias)));
  const unlisted = [...new Set(calledTools(body))].filter((name) => !listed.has(name) && splitGatewayName(name) !== undefined);
  const aliasCalls = (
    await Promise.all(unlisted.map(async (name) => ({ name, row: await sources.resolve(ctx.user.id, name) })))
  ).flatMap(({ name, row }) => (row ? [{ name, row }] : []));
  requests.set(requestCtx, { inventory, hiddenBuiltins, aliasCalls, replay });
  return serveWithSdk(forward, definition, requestCtx, body);
}

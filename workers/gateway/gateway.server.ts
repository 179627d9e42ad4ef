/**
 * The aggregated MCP endpoint /mcp: the built-in servers' tools plus every enabled source's
 * tools of the user, named `<source_slug>__<alias>`. The list comes from the D1 inventory (no
 * upstream round trip); a call goes to the source's Durable Object through SourceService.
 *
 * Its tools differ per user, so it is always served by the SDK (serveWithSdk), never by the
 * fast path's per-isolate cached listing (decision 0006). The built-in definitions are passed
 * in by workers/app.ts, so this module never imports the app (no import cycle).
 */
import { isCallToolResult, type McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { toAppError } from "../lib/errors";
import { log } from "../lib/log";
import { type McpServerDefinition, serveWithSdk } from "../mcp/hosting";
import { errorResult, type ToolContext } from "../mcp/tool";
import type { InventoryRow } from "./sources.repo";
import { gatewayName } from "./sources.service";

type JsonObject = Record<string, unknown>;

/** Each request's inventory, keyed by that request's own context object. */
const inventories = new WeakMap<ToolContext, InventoryRow[]>();

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
      validate: (value) => (isObject(value) ? { value } : { issues: [{ message: "arguments must be an object" }] }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

function registerSourceTools(server: McpServer, ctx: ToolContext, rows: readonly InventoryRow[]): void {
  for (const { source, tool } of rows) {
    const name = gatewayName(source.slug, tool.alias);
    server.registerTool(
      name,
      {
        title: tool.title ?? `${source.name}: ${tool.name}`,
        description: tool.description,
        inputSchema: upstreamSchema(tool.inputSchema),
        ...(tool.outputSchema ? { outputSchema: upstreamSchema(tool.outputSchema) } : {}),
        annotations: tool.annotations,
      },
      async (args: JsonObject) => {
        try {
          const outcome = await ctx.services.sources.call(ctx.user.id, name, args);
          const result: unknown = JSON.parse(outcome.resultJson);
          if (isCallToolResult(result)) return result;
          return errorResult(new Error(`upstream result of ${name} is not a tools/call result`));
        } catch (error) {
          const appError = toAppError(error);
          if (appError.code === "internal") log.error("gateway call failed", { tool: name, user: ctx.user.id, cause: String(appError.cause ?? appError) });
          return errorResult(appError);
        }
      },
    );
  }
}

export function createGatewayServer(builtins: readonly McpServerDefinition[]): McpServerDefinition {
  return {
    name: "gateway",
    route: "/mcp",
    version: "0.1.0",
    instructions:
      "One endpoint for every tool you can use: the built-in task and RAG tools, and the tools of the MCP servers you registered as sources, named <source>__<tool>.",
    tools: builtins.flatMap((definition) => definition.tools),
    extend: (server, ctx) => registerSourceTools(server, ctx, inventories.get(ctx) ?? []),
  };
}

export async function serveGateway(request: Request, definition: McpServerDefinition, ctx: ToolContext): Promise<Response> {
  // A context object of this request alone, so the inventory keyed by it cannot reach another request.
  const requestCtx: ToolContext = { user: ctx.user, services: ctx.services };
  inventories.set(requestCtx, await ctx.services.sources.inventory(ctx.user.id));
  return serveWithSdk(request, definition, requestCtx);
}

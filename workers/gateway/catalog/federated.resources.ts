/**
 * Registers on a request's McpServer what `federationFor` found of the user's sources (decision
 * 0068), beside the built-in servers' own resources, templates and prompts: the SDK then answers
 * every list, read, prompt and completion in its own words, the sources' items named for /mcp.
 *
 * - Lists: each source's resources under their /mcp URIs, its templates as `<slug>__<name>` with
 *   /mcp URI templates, its prompts as `<slug>__<name>` with their arguments.
 * - A read, a prompt or a completion: just the item the request names, whose handler forwards to its
 *   source (SourceCalls.forward) and names the URIs of the answer. What names no served source stays
 *   unregistered: the SDK answers "Resource not found: <uri>" or "Prompt <name> not found" (-32602),
 *   exactly as for a source of another user.
 * - An upstream item /mcp cannot name (a URI without a plain scheme, a malformed template) is left
 *   out, with a warning in the log; what an upstream answers is checked against the SDK's schema.
 * - Descriptions and titles are text a model reads: cleaned and bounded as a tool's are (0049).
 */
import {
  completable,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  isSpecType,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import * as z from "zod";
import { AppError } from "../../lib/errors";
import { isJsonObject, type JsonObject } from "../../lib/json";
import { log } from "../../lib/log";
import type { ToolContext } from "../../mcp/tool";
import type { ForwardedRequest, UpstreamAnswer } from "../../mcp-client/upstream-request";
import { gatewayName } from "../sources/gateway-names";
import { gatewayUri } from "../sources/gateway-uris";
import type { CallSource } from "../sources/sources.repo";
import { promptResultNamed, readResultNamed } from "../calls/uri-rewrite";
import { INVENTORY_SETTINGS } from "../discovery/inventory-limits";
import { cleanText, shorten } from "../discovery/tool-text";
import type { Federation, Named } from "./federated-lookup.resources";

const RESOURCE_FIELDS = ["title", "description", "mimeType", "size", "annotations", "icons", "_meta"] as const;

/**
 * A text a model reads (a description, a title), cleaned as a tool's is (decision 0049): what a reader
 * cannot see removed, and shortened to the default bounds of a tool's text.
 */
function readable(field: string, value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (field === "title") return shorten(cleanText(value, "title"), INVENTORY_SETTINGS.titleChars.fallback);
  if (field === "description") return shorten(cleanText(value, "description"), INVENTORY_SETTINGS.descriptionChars.fallback);
  return value;
}

function picked(item: JsonObject, fields: readonly string[]): JsonObject {
  return Object.fromEntries(fields.flatMap((field) => (item[field] === undefined ? [] : [[field, readable(field, item[field])]])));
}

/** A failure to reach the source, or the source's JSON-RPC error, as the error the SDK answers. */
function protocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (error instanceof AppError) {
    const code =
      error.code === "invalid_input" || error.code === "not_found" ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
    return new ProtocolError(code, `${error.code}: ${error.message}`, { error_type: error.code });
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, "the source's answer could not be read");
}

async function forwarded(ctx: ToolContext, source: CallSource, request: ForwardedRequest, audited: string): Promise<JsonObject> {
  let answer: UpstreamAnswer;
  try {
    answer = await ctx.services.sourceCalls.forward(ctx.user.id, source, request, audited);
  } catch (error) {
    throw protocolError(error);
  }
  if ("error" in answer) throw new ProtocolError(answer.error.code, `source ${source.slug}: ${answer.error.message}`);
  return answer.result;
}

function notA(kind: string, source: CallSource): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, `source ${source.slug} answered something that is not a ${kind}`);
}

function readHandler(ctx: ToolContext, { source, upstream }: Named) {
  return async () => {
    const result = readResultNamed(
      source.slug,
      await forwarded(ctx, source, { method: "resources/read", params: { uri: upstream } }, "resources/read"),
    );
    if (!isSpecType.ReadResourceResult(result)) throw notA("resources/read result", source);
    return result;
  };
}

/** A prompt's arguments as its source lists them, advertised as-is; the values pass on unchecked (the source checks them). */
function promptArguments(listed: unknown): StandardSchemaWithJSON<JsonObject, JsonObject> {
  const args = Array.isArray(listed) ? listed.filter(isJsonObject).filter((arg) => typeof arg["name"] === "string") : [];
  const schema: JsonObject = {
    type: "object",
    properties: Object.fromEntries(
      args.map((arg) => [
        arg["name"],
        { type: "string", ...(typeof arg["description"] === "string" ? { description: arg["description"] } : {}) },
      ]),
    ),
    required: args.filter((arg) => arg["required"] === true).map((arg) => arg["name"]),
  };
  return {
    "~standard": {
      version: 1,
      vendor: "mcp-edge-gateway",
      validate: (value) => ({ value: isJsonObject(value) ? value : {} }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

function promptHandler(ctx: ToolContext, { source, upstream }: Named, name: string) {
  return async (args: JsonObject) => {
    const params = { name: upstream, arguments: args };
    const result = promptResultNamed(source.slug, await forwarded(ctx, source, { method: "prompts/get", params }, upstream));
    if (!isSpecType.GetPromptResult(result)) throw notA(`prompts/get result of ${name}`, source);
    return result;
  };
}

/** Completes `argument` of the source's prompt or template by asking the source. */
function completer(ctx: ToolContext, { source, upstream }: Named, ref: "ref/prompt" | "ref/resource", argument: string) {
  return async (value: string, context?: { arguments?: Record<string, string> }): Promise<string[]> => {
    const params = {
      ref: ref === "ref/prompt" ? { type: ref, name: upstream } : { type: ref, uri: upstream },
      argument: { name: argument, value },
      ...(context?.arguments ? { context: { arguments: context.arguments } } : {}),
    };
    const result = await forwarded(ctx, source, { method: "completion/complete", params }, upstream);
    const completion = isJsonObject(result["completion"]) ? result["completion"]["values"] : undefined;
    return Array.isArray(completion) ? completion.filter((item) => typeof item === "string") : [];
  };
}

function left(source: CallSource, what: string, why: string): void {
  log.warn("gateway left out a source's item", { source: source.slug, item: what.slice(0, 200), why });
}

export function registerFederation(server: McpServer, ctx: ToolContext, federation: Federation): void {
  const resources = new Set<string>();
  const prompts = new Set<string>();
  for (const { source, items } of federation.lists["resources/list"] ?? []) {
    for (const item of items) {
      const uri = typeof item["uri"] === "string" ? gatewayUri(source.slug, item["uri"]) : undefined;
      if (uri === undefined || typeof item["name"] !== "string") {
        left(source, String(item["uri"]), "a resource needs a name and a URI with a plain scheme");
        continue;
      }
      if (resources.has(uri)) continue;
      resources.add(uri);
      server.registerResource(
        item["name"],
        uri,
        picked(item, RESOURCE_FIELDS),
        readHandler(ctx, { source, upstream: String(item["uri"]) }),
      );
    }
  }
  const templateNames = new Set<string>();
  for (const { source, items } of federation.lists["resources/templates/list"] ?? []) {
    for (const item of items) {
      const uriTemplate = typeof item["uriTemplate"] === "string" ? gatewayUri(source.slug, item["uriTemplate"]) : undefined;
      const name = typeof item["name"] === "string" ? gatewayName(source.slug, item["name"]) : undefined;
      if (uriTemplate === undefined || name === undefined || templateNames.has(name)) {
        left(source, String(item["uriTemplate"]), "a template needs a unique name and a URI template with a plain scheme");
        continue;
      }
      let template: ResourceTemplate;
      try {
        template = new ResourceTemplate(uriTemplate, { list: undefined });
      } catch (error) {
        left(source, uriTemplate, `malformed URI template: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      templateNames.add(name);
      server.registerResource(name, template, picked(item, RESOURCE_FIELDS), async () => {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource template ${uriTemplate} is listed here, not read`);
      });
    }
  }
  for (const { source, items } of federation.lists["prompts/list"] ?? []) {
    for (const item of items) {
      if (typeof item["name"] !== "string") continue;
      const name = gatewayName(source.slug, item["name"]);
      if (prompts.has(name)) continue;
      prompts.add(name);
      const config = { ...picked(item, ["title", "description", "icons", "_meta"]), argsSchema: promptArguments(item["arguments"]) };
      server.registerPrompt(name, config, promptHandler(ctx, { source, upstream: item["name"] }, name));
    }
  }
  for (const [uri, named] of federation.reads) {
    // The SDK looks a read up by the URI as the URL parser writes it; one it cannot parse it refuses itself (-32602).
    const key = URL.canParse(uri) ? new URL(uri).href : undefined;
    if (key === undefined || resources.has(key)) continue;
    resources.add(key);
    server.registerResource(named.upstream, key, {}, readHandler(ctx, named));
  }
  for (const [name, named] of federation.prompts) {
    if (prompts.has(name)) continue;
    prompts.add(name);
    const argument = federation.completedArguments.get(name);
    const argsSchema =
      argument === undefined
        ? promptArguments([])
        : z.object({ [argument]: completable(z.string(), completer(ctx, named, "ref/prompt", argument)).optional() });
    server.registerPrompt(name, { argsSchema }, promptHandler(ctx, named, name));
  }
  for (const [uriTemplate, named] of federation.templates) {
    const argument = federation.completedArguments.get(uriTemplate);
    if (argument === undefined) continue;
    let template: ResourceTemplate;
    try {
      template = new ResourceTemplate(uriTemplate, {
        list: undefined,
        complete: { [argument]: completer(ctx, named, "ref/resource", argument) },
      });
    } catch {
      continue;
    }
    server.registerResource(`completion of ${uriTemplate}`, template, {}, async () => {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource template ${uriTemplate} is completed here, not read`);
    });
  }
}

/**
 * Every place a source's own URI reaches a /mcp client is rewritten to its /mcp name
 * (sources/gateway-uris.ts, decision 0068), so a client that follows it comes back to the gateway
 * and is routed to that source: `resource_link` and embedded `resource` blocks of a tool's or a
 * prompt's result, a read's `contents[].uri`, and a tool's MCP Apps `_meta.ui.resourceUri` (and the
 * legacy flat `_meta["ui/resourceUri"]`). A URI that cannot be named (no plain scheme) is left as
 * the upstream sent it: nothing on /mcp answers it, and the read says so.
 */
import { isJsonObject, type JsonObject } from "../../lib/json";
import { gatewayUri } from "../sources/gateway-uris";

/** The MCP Apps extension's legacy flat key for a tool's UI resource. */
export const LEGACY_UI_URI_KEY = "ui/resourceUri";

function named(slug: string, uri: unknown): unknown {
  return typeof uri === "string" ? (gatewayUri(slug, uri) ?? uri) : uri;
}

function hasResourceBlock(content: unknown): content is unknown[] {
  return (
    Array.isArray(content) &&
    content.some((block) => isJsonObject(block) && (block["type"] === "resource_link" || block["type"] === "resource"))
  );
}

/** A content block with its resource URI named. */
function blockNamed(slug: string, block: unknown): unknown {
  if (!isJsonObject(block)) return block;
  if (block["type"] === "resource_link") return { ...block, uri: named(slug, block["uri"]) };
  if (block["type"] === "resource" && isJsonObject(block["resource"])) {
    return { ...block, resource: { ...block["resource"], uri: named(slug, block["resource"]["uri"]) } };
  }
  return block;
}

/** A tools/call result's content with resource URIs named; the same object when it has none (the common case costs one scan). */
export function toolResultNamed(slug: string, result: JsonObject): JsonObject {
  const content = result["content"];
  if (!hasResourceBlock(content)) return result;
  return { ...result, content: content.map((block) => blockNamed(slug, block)) };
}

/** A prompts/get result's messages with resource URIs named. */
export function promptResultNamed(slug: string, result: JsonObject): JsonObject {
  const messages = result["messages"];
  if (!Array.isArray(messages)) return result;
  return {
    ...result,
    messages: messages.map((message) =>
      isJsonObject(message) && message["content"] !== undefined ? { ...message, content: blockNamed(slug, message["content"]) } : message,
    ),
  };
}

/** A resources/read result's contents with their URIs named. */
export function readResultNamed(slug: string, result: JsonObject): JsonObject {
  const contents = result["contents"];
  if (!Array.isArray(contents)) return result;
  return { ...result, contents: contents.map((item) => (isJsonObject(item) ? { ...item, uri: named(slug, item["uri"]) } : item)) };
}

/**
 * The MCP Apps part of a source tool's `_meta` as /mcp lists it: `ui` with its `resourceUri` named,
 * and the legacy flat key beside it (hosts read either). Undefined when the tool has no UI.
 */
export function uiMetaNamed(slug: string, ui: JsonObject | null): JsonObject | undefined {
  if (ui === null) return undefined;
  const uri = named(slug, ui["resourceUri"]);
  return typeof uri === "string" ? { ui: { ...ui, resourceUri: uri }, [LEGACY_UI_URI_KEY]: uri } : { ui };
}

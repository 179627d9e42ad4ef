/**
 * Per-tool scopes, enforced before anything runs: a request whose `tools/call` (or resource,
 * prompt or completion request) needs a scope the token lacks is answered 403 with the step-up
 * challenge naming every scope the request needs. Runs ahead of every serving path — the SDK, the
 * fast path (fast-path.ts) and the gateway's call fast path — so they cannot disagree; invokeTool
 * checks again as a second lock. Unknown tools need nothing here: the SDK answers "not found".
 */
import { refusal } from "../auth/access";
import type { Scope } from "../auth/scopes";
import { isJsonObject } from "../lib/json";
import type { McpServerDefinition } from "./server-definition";
import type { ToolContext } from "./tool";

/** Methods that read what `extend` registers (resources, prompts, completions). */
const EXTENSION_METHODS = new Set(["resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get", "completion/complete"]);

const toolScopeIndexes = new WeakMap<McpServerDefinition, Map<string, readonly Scope[]>>();

/** The scopes a tool of `definition` needs, or undefined for a name it does not serve. */
export function toolScopes(definition: McpServerDefinition, name: string): readonly Scope[] | undefined {
  if (definition.toolScopes) return definition.toolScopes(name);
  let index = toolScopeIndexes.get(definition);
  if (!index) toolScopeIndexes.set(definition, (index = new Map(definition.tools.map((tool) => [tool.name, tool.scopes]))));
  return index.get(name);
}

function scopesOf(message: unknown, definition: McpServerDefinition): readonly Scope[] {
  if (!isJsonObject(message) || typeof message["method"] !== "string") return [];
  const method = message["method"];
  if (method === "tools/call") {
    const params = message["params"];
    const name = isJsonObject(params) ? params["name"] : undefined;
    return typeof name === "string" ? (toolScopes(definition, name) ?? []) : [];
  }
  return EXTENSION_METHODS.has(method) ? (definition.extensionScopes ?? []) : [];
}

/** The 403 for a parsed body (one message or a batch) the caller may not send, else undefined. */
export function scopeRefusal(body: unknown, definition: McpServerDefinition, ctx: ToolContext): Response | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const needed = new Set<Scope>();
  for (const message of messages) for (const scope of scopesOf(message, definition)) needed.add(scope);
  return needed.size === 0 ? undefined : refusal(ctx.access, [...needed]);
}

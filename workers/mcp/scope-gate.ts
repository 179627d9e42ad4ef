/**
 * Per-tool scopes, enforced before anything runs: a request whose `tools/call` (or resource,
 * prompt or completion request) needs a scope the token lacks is answered 403 with the step-up
 * challenge naming every scope the request needs. Runs ahead of every serving path — the SDK, the
 * fast path (fast-path.ts) and a server's routing hook — so they cannot disagree; invokeTool
 * checks again as a second lock. Unknown tools need nothing here: the SDK answers "not found".
 */
import { refusal } from "../auth/access";
import type { Scope } from "../auth/scopes";
import type { Check } from "./check";
import type { McpMessage } from "./post";
import type { McpServerDefinition } from "./server-definition";

/** Methods that read what `extend` registers (resources, prompts, completions). */
const EXTENSION_METHODS = new Set([
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
]);

const toolScopeIndexes = new WeakMap<McpServerDefinition, Map<string, readonly Scope[]>>();

/** The scopes a tool of `definition` needs, or undefined for a name it does not serve. */
export function toolScopes(definition: McpServerDefinition, name: string): readonly Scope[] | undefined {
  if (definition.toolScopes) return definition.toolScopes(name);
  let index = toolScopeIndexes.get(definition);
  if (!index) toolScopeIndexes.set(definition, (index = new Map(definition.tools.map((tool) => [tool.name, tool.scopes]))));
  return index.get(name);
}

function scopesOf(message: McpMessage, definition: McpServerDefinition): readonly Scope[] {
  const { method, toolName } = message;
  if (method === "tools/call") return toolName === undefined ? [] : (toolScopes(definition, toolName) ?? []);
  if (method === undefined || !EXTENSION_METHODS.has(method)) return [];
  return definition.extensionScopesOf?.(message) ?? definition.extensionScopes ?? [];
}

/** The 403 for a post (one message or a batch) the caller may not send. */
export const scopes: Check = (post, { definition, ctx }) => {
  const needed = new Set<Scope>();
  for (const message of post.messages) for (const scope of scopesOf(message, definition)) needed.add(scope);
  const response = needed.size === 0 ? undefined : refusal(ctx.access, [...needed]);
  return response && { kind: "http", response };
};

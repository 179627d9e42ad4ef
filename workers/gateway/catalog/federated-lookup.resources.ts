/**
 * What a /mcp request's resource, prompt and completion messages need of the user's sources
 * (decision 0068), found before the SDK serves it (`prepare`), so only such a request pays:
 * a tools/list or tools/call finds nothing here and costs nothing more.
 *
 * - A list (resources, templates, prompts) is asked of every source /mcp serves the user, live,
 *   through the call path (SourceCalls.forward: breaker, timeouts, token, audit). A source that
 *   fails or answers an error is left out of that list and logged; the others are listed.
 * - A read, a prompt and a completion name one source (by URI or prompt name): that source alone,
 *   looked up for this user; another user's, a hidden, a disabled or a deleted one is not found.
 */
import { isJsonObject, type JsonObject } from "../../lib/json";
import { log } from "../../lib/log";
import type { McpPost } from "../../mcp/server-definition";
import type { ToolContext } from "../../mcp/tool";
import { LIST_KEYS } from "../../mcp-client/upstream-request";
import { splitGatewayName } from "../sources/gateway-names";
import { splitGatewayUri } from "../sources/gateway-uris";
import type { CallSource } from "../sources/sources.repo";

export type FederatedList = "resources/list" | "resources/templates/list" | "prompts/list";

/** One source's items of a list, as it answered them. */
export interface SourceItems {
  source: CallSource;
  items: JsonObject[];
}

/** A message that names one source's item: the source, and its own name or URI. */
export interface Named {
  source: CallSource;
  /** The prompt's name, or the resource's URI (or URI template), on the source. */
  upstream: string;
}

export interface Federation {
  lists: Partial<Record<FederatedList, SourceItems[]>>;
  /** By the URI as /mcp names it (resources/read). */
  reads: Map<string, Named>;
  /** By the prompt's /mcp name (prompts/get, and completions of its arguments). */
  prompts: Map<string, Named>;
  /** By the template's /mcp URI (completions of its variables). */
  templates: Map<string, Named>;
  /** Each completion's argument, by the /mcp prompt name or template URI it completes. */
  completedArguments: Map<string, string>;
}

const LISTS: readonly FederatedList[] = ["resources/list", "resources/templates/list", "prompts/list"];
const FEDERATED_METHODS: ReadonlySet<string | undefined> = new Set([...LISTS, "resources/read", "prompts/get", "completion/complete"]);

/** Whether a message reads what /mcp federates beyond tools. */
export function isFederatedMethod(method: string | undefined): boolean {
  return FEDERATED_METHODS.has(method);
}

function stringParam(params: unknown, key: string): string | undefined {
  return isJsonObject(params) && typeof params[key] === "string" ? params[key] : undefined;
}

/** One source's list, or nothing (logged) when it failed or answered an error. */
async function listOf(ctx: ToolContext, source: CallSource, method: FederatedList): Promise<SourceItems | undefined> {
  const key = LIST_KEYS[method] ?? "";
  try {
    const answer = await ctx.services.sourceCalls.forward(ctx.user.id, source, { method, params: {} }, method);
    if ("error" in answer) {
      // -32601: the source serves no such list, which is no warning.
      if (answer.error.code !== -32601)
        log.warn("gateway list left out a source", { source: source.slug, method, error: answer.error.message });
      return undefined;
    }
    const items = answer.result[key];
    return { source, items: Array.isArray(items) ? items.filter(isJsonObject) : [] };
  } catch (error) {
    log.warn("gateway list left out a source", {
      source: source.slug,
      method,
      error: String(error instanceof Error ? error.message : error),
    });
    return undefined;
  }
}

/** What the request's federated messages need; undefined when it has none (no query, no upstream round trip). */
export async function federationFor(post: McpPost, ctx: ToolContext, withSources: boolean): Promise<Federation | undefined> {
  const messages = post.messages.filter((message) => isFederatedMethod(message.method));
  if (messages.length === 0) return undefined;
  const federation: Federation = { lists: {}, reads: new Map(), prompts: new Map(), templates: new Map(), completedArguments: new Map() };
  if (!withSources) return federation;
  const calls = ctx.services.sourceCalls;
  const wanted = LISTS.filter((list) => messages.some((message) => message.method === list));
  if (wanted.length > 0) {
    const sources = await calls.servedSources(ctx.user.id);
    await Promise.all(
      wanted.map(async (list) => {
        const answered = await Promise.all(sources.map((source) => listOf(ctx, source, list)));
        federation.lists[list] = answered.filter((items) => items !== undefined);
      }),
    );
  }
  for (const { method, params } of messages) {
    if (method === "resources/read") await nameUri(ctx, stringParam(params, "uri"), federation.reads);
    if (method === "prompts/get") await namePrompt(ctx, stringParam(params, "name"), federation.prompts);
    if (method === "completion/complete" && isJsonObject(params) && isJsonObject(params["ref"])) {
      const ref = params["ref"];
      const argument = stringParam(params["argument"], "name");
      const target = ref["type"] === "ref/prompt" ? stringParam(ref, "name") : stringParam(ref, "uri");
      if (target === undefined || argument === undefined) continue;
      const found =
        ref["type"] === "ref/prompt" ? await namePrompt(ctx, target, federation.prompts) : await nameUri(ctx, target, federation.templates);
      if (found) federation.completedArguments.set(target, argument);
    }
  }
  return federation;
}

async function nameUri(ctx: ToolContext, uri: string | undefined, into: Map<string, Named>): Promise<boolean> {
  const split = uri === undefined ? undefined : splitGatewayUri(uri);
  const source = split && (await ctx.services.sourceCalls.servedSource(ctx.user.id, split.slug));
  if (uri === undefined || !split || !source) return false;
  into.set(uri, { source, upstream: split.uri });
  return true;
}

async function namePrompt(ctx: ToolContext, name: string | undefined, into: Map<string, Named>): Promise<boolean> {
  const split = name === undefined ? undefined : splitGatewayName(name);
  const source = split && (await ctx.services.sourceCalls.servedSource(ctx.user.id, split.slug));
  if (name === undefined || !split || !source) return false;
  into.set(name, { source, upstream: split.alias });
  return true;
}

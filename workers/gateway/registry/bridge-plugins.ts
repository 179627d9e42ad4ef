/**
 * Plugins served by `mcp-edge bridge --plugins DIR`, as the gateway reaches them: a registration
 * names the bridge by its base URL (`url`) and the plugin by `mcp_plugin_dir`; the plugin's MCP
 * endpoint is `<url>/plugins/<name>/mcp` and its manifest is read, with the bridge token, from
 * `<url>/plugins/<name>`. The bridge decides where its plugins live, so a plugin is named by the
 * last segment of `mcp_plugin_dir`: the original provider's `/opt/mcp-plugins/github` names the
 * bridge's `github`, and registers unchanged.
 */
import * as z from "zod";
import { AppError } from "../../lib/errors";

/** A plugin's name: one directory name, never `.`/`..`, nothing a URL path would need to escape. */
export const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The plugin a `mcp_plugin_dir` names (its last path segment, `/` or `\` separated); undefined when it names none. */
export function pluginName(dir: string): string | undefined {
  const last = dir
    .split(/[\\/]+/)
    .filter((segment) => segment !== "")
    .pop();
  return last !== undefined && PLUGIN_NAME.test(last) ? last : undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

export function pluginEndpoint(bridgeUrl: string, name: string): string {
  return `${trimSlash(bridgeUrl)}/plugins/${name}/mcp`;
}

const ENDPOINT_SUFFIX = /\/plugins\/[^/]+\/mcp$/;

/** The bridge's base URL back from a stored plugin endpoint. */
export function bridgeUrlOf(endpoint: string): string {
  return endpoint.replace(ENDPOINT_SUFFIX, "");
}

/** What the bridge answers on GET /plugins/<name>: the manifest with secret defaults redacted. */
const pluginInfoSchema = z.object({
  manifest: z.record(z.string(), z.unknown()),
  /** Declared variables the bridge sets itself (from its own environment): names only. */
  provided_env: z.array(z.string()).default([]),
});
const pluginListSchema = z.object({ plugins: z.array(z.object({ name: z.string() })) });

export interface BridgePlugin {
  name: string;
  /** The plugin's MCP endpoint: what the source's calls reach. */
  endpoint: string;
  manifest: Record<string, unknown>;
  providedEnv: string[];
}

export interface PluginRequest {
  /** The bridge's base URL, already checked by the URL-safety rules. */
  bridgeUrl: string;
  dir: string;
  token: string;
  timeoutMs: number;
}

type Fetcher = (input: string, init: RequestInit) => Promise<Response>;

async function get(url: string, token: string, timeoutMs: number, fetcher: Fetcher, what: string): Promise<Response> {
  try {
    // No redirects: the bridge token must reach only the URL that passed the URL-safety check.
    return await fetcher(url, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const reason =
      error instanceof Error && error.name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : String(error instanceof Error ? error.message : error);
    throw new AppError("unavailable", `could not reach the bridge at ${url} to read ${what}: ${reason}`, { cause: error });
  }
}

async function jsonOf<S extends z.ZodType>(res: Response, schema: S, url: string): Promise<z.output<S>> {
  const parsed = schema.safeParse(await res.json().catch(() => undefined));
  if (!parsed.success)
    throw new AppError("upstream_error", `the bridge at ${url} answered something that is not an mcp-edge bridge plugin description`);
  return parsed.data;
}

async function servedNames(request: PluginRequest, fetcher: Fetcher): Promise<string[] | undefined> {
  const url = `${trimSlash(request.bridgeUrl)}/plugins`;
  const res = await get(url, request.token, request.timeoutMs, fetcher, "its plugins");
  if (!res.ok) return undefined;
  return (await jsonOf(res, pluginListSchema, url)).plugins.map((p) => p.name);
}

/** Reads the plugin `request.dir` names from the bridge; every refusal is an AppError naming the field to fix. */
export async function readBridgePlugin(
  request: PluginRequest,
  fetcher: Fetcher = (input, init) => fetch(input, init),
): Promise<BridgePlugin> {
  const name = pluginName(request.dir);
  if (name === undefined) {
    throw AppError.invalid(
      `mcp_plugin_dir ${JSON.stringify(request.dir)} must end in a directory name (letters, digits, ".", "_", "-")`,
      "mcp_plugin_dir",
    );
  }
  const url = `${trimSlash(request.bridgeUrl)}/plugins/${name}`;
  const res = await get(url, request.token, request.timeoutMs, fetcher, `plugin ${name}`);
  if (res.status === 401) throw AppError.invalid(`bridge_token: the bridge at ${request.bridgeUrl} refused it (HTTP 401)`, "bridge_token");
  if (res.status === 404) {
    await res.body?.cancel();
    const served = await servedNames(request, fetcher);
    if (served === undefined) {
      throw AppError.invalid(
        `url: ${request.bridgeUrl} serves no plugins; start the bridge with \`mcp-edge bridge --plugins DIR\` and register its base URL`,
        "url",
      );
    }
    throw AppError.invalid(
      `mcp_plugin_dir ${request.dir}: the bridge at ${request.bridgeUrl} serves no plugin ${name} (it serves: ${served.join(", ") || "none"})`,
      "mcp_plugin_dir",
    );
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new AppError("upstream_error", `the bridge at ${request.bridgeUrl} answered HTTP ${res.status} when asked for plugin ${name}`);
  }
  const info = await jsonOf(res, pluginInfoSchema, url);
  return { name, endpoint: pluginEndpoint(request.bridgeUrl, name), manifest: info.manifest, providedEnv: info.provided_env };
}

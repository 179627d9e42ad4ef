/**
 * The gateway row's setup: /mcp/tasks of a second mcp-edge workerd (the upstream, seeded alike)
 * registered as a singleton source of the bench user, so `tools/call <slug>__list_tasks` on /mcp
 * goes auth → D1 inventory → D1 tool lookup → the stateless call from the isolate → the upstream's
 * /mcp/tasks (auth, fast path) over the network and back. The direct row is the same call on
 * /mcp/tasks of the gateway's own Worker, so the difference is what the gateway adds; the
 * upstream's own CPU is in the other process, as on Cloudflare. A source is never on the Worker's
 * own origin (decision 0057).
 *
 * SELF_ORIGIN names the Worker's origin, as deployed (the bench picks the port before starting workerd).
 */
import { randomBytes } from "node:crypto";
import type { Route } from "./mcp";

export const GATEWAY_PATH = "/mcp";
export const GATEWAY_SOURCE_NAME = "Bench tasks";
/** The sessionful row's source: the node-sdk peer keeping sessions (BENCH_PEER_SESSIONS=1). */
export const SESSIONFUL_SOURCE_NAME = "Bench sessionful";

/** What `npm run dev` passes as --var (bin/dev.ts): private upstreams, the own origin, a fresh key. */
export function gatewayVars(port: number): Record<string, string> {
  return {
    ALLOW_PRIVATE_UPSTREAMS: "1",
    SELF_ORIGIN: `http://127.0.0.1:${port}`,
    SOURCE_SECRETS_KEY: randomBytes(32).toString("base64"),
  };
}

/** POST /api/sources answers the source and its discovered tools. */
interface SourceResponse {
  source?: { slug?: string; last_discovery_error?: string | null };
  tools?: { name: string; gateway_name: string }[];
}

/** Registers the upstream workerd's /mcp/tasks as a source of the gateway at `base` (discovery finds it stateless). */
export function registerTasksSource(base: URL, token: string, upstream: URL): Promise<string> {
  return registerSource(base, token, GATEWAY_SOURCE_NAME, new URL("/mcp/tasks", upstream));
}

/**
 * Registers an upstream as a singleton source of the bench user over REST (the token travels as a
 * secret header, as a real user would store it) and returns the prefix its tools get on /mcp.
 * Fails loudly when discovery did not find list_tasks: a gateway row without a working source
 * would measure errors.
 */
export async function registerSource(base: URL, token: string, name: string, upstream: URL): Promise<string> {
  const response = await fetch(new URL("/api/sources", base), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      name,
      url: upstream.toString(),
      mcp_lifecycle_mode: "singleton",
      mcp_env_vars: [{ name: "Authorization", value: `Bearer ${token}`, secret: true }],
    }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`registering the gateway source: HTTP ${response.status} ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as SourceResponse;
  const listTasks = body.tools?.find((tool) => tool.name === "list_tasks");
  if (!body.source?.slug || !listTasks) {
    throw new Error(
      `the gateway source discovered no list_tasks (${body.source?.last_discovery_error ?? "no error reported"}): ${text.slice(0, 300)}`,
    );
  }
  return listTasks.gateway_name.slice(0, -"list_tasks".length);
}

export function gatewayRoute(toolPrefix: string): Route {
  return { path: GATEWAY_PATH, toolPrefix, sdkOnly: false };
}

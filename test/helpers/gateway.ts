/**
 * Gateway shortcuts: register a source over REST, and an MCP client on the aggregated /mcp
 * endpoint. The upstream in these tests is the tasks server of the upstream Worker — this same
 * Worker run as another deployment (test/upstreams/upstream-worker.ts), sharing its D1 database so a
 * test's user token works there too — a real MCP server on another origin, not a mock.
 */
import type { Client } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { api, type ApiResponse } from "./rest";
import { connectTo } from "./mcp";
import { UPSTREAM_ORIGIN } from "../upstreams/upstream-origin";
import type { TestUser } from "./users";

export const TASKS_URL = `${UPSTREAM_ORIGIN}/mcp/tasks`;

export interface ToolView {
  name: string;
  alias: string;
  gateway_name: string;
  aliases: string[];
  hidden: boolean;
}

export interface SourceBody {
  id: number;
  slug: string;
  name: string;
  url: string;
  mcp_transport_type: string;
  enabled: boolean;
  hidden: boolean;
  tool_count: number;
  last_discovered_at: string | null;
  last_discovery_error: string | null;
  warnings: string[];
  inventory_stale_at: string | null;
  mcp_env_vars: { name: string; secret: boolean; value?: string }[];
  mcp_command: string | null;
  mcp_args: string[];
  mcp_runtime_hint: string | null;
  manifest: Record<string, unknown> | null;
  has_bridge_token: boolean;
}

/** What POST, GET /api/sources/{id}, PATCH and refresh answer. */
export interface SourceDetailBody {
  source: SourceBody;
  tools: ToolView[];
}

/** The source's D1 row as stored (to check what is encrypted and what the cron wrote). */
export async function sourceRow(id: number): Promise<Record<string, unknown>> {
  const row = await env.DB.prepare("SELECT * FROM sources WHERE id = ?").bind(id).first<Record<string, unknown>>();
  if (!row) throw new Error(`no source ${id}`);
  return row;
}

/** Registers the tasks server as a source whose calls act as `tokenUser`. */
export function registerTasksSource(
  owner: TestUser,
  tokenUser: TestUser,
  overrides: Record<string, unknown> = {},
): Promise<ApiResponse<SourceDetailBody>> {
  return api<SourceDetailBody>(owner, "POST", "/api/sources", {
    body: {
      name: `Tasks ${crypto.randomUUID().slice(0, 6)}`,
      url: TASKS_URL,
      mcp_env_vars: [{ name: "Authorization", value: `Bearer ${tokenUser.token}`, secret: true }],
      ...overrides,
    },
  });
}

/** `pin2026`: speak only the 2026-07-28 revision (whose list results carry cache hints). */
export function connectGateway(user: TestUser, options: { pin2026?: boolean } = {}): Promise<Client> {
  return connectTo("/mcp", user.token, options.pin2026 ? { era: "2026-07-28" } : {});
}

/** One tool call on /mcp as `user`, over a connection of its own (closed after). */
export async function callThroughGateway(user: TestUser, name: string, args: Record<string, unknown> = {}): ReturnType<Client["callTool"]> {
  const gateway = await connectGateway(user);
  try {
    return await gateway.callTool({ name, arguments: args });
  } finally {
    await gateway.close();
  }
}

/**
 * A source of `owner` on this Worker's own origin (`url`, e.g. http://localhost/mcp/tasks) as a row
 * stored before registration refused such URLs (decision 0057): registered on the upstream Worker's
 * /mcp/tasks (so its inventory holds that server's tools), then its URL and call path rewritten in D1.
 */
export async function storeOwnOriginSource(
  owner: TestUser,
  url: string,
  kind: "stateless" | "sessionful",
): Promise<{ id: number; slug: string }> {
  const { status, body } = await registerTasksSource(owner, owner, { name: `Own ${crypto.randomUUID().slice(0, 6)}` });
  if (status !== 201) throw new Error(`registering the tasks source: ${JSON.stringify(body)}`);
  const { id, slug } = body.source;
  await env.DB.prepare("UPDATE sources SET mcp_server_url = ?, upstream_kind = ? WHERE id = ?").bind(url, kind, id).run();
  return { id, slug };
}

/**
 * The real upstream servers test/upstreams/global-setup.ts runs for these tests, and
 * shortcuts to register them as gateway sources over REST.
 */
import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/client";
import { api, type ApiResponse } from "./rest";
import type { SourceDetailBody } from "./gateway";
import type { TestUser } from "./users";

export interface TestUpstreams {
  /** Base URL of the fixture server; its MCP paths are `${fixture}/<behaviour>/mcp`. */
  fixture: string;
  everything_http: string;
  everything_sse: string;
  /** The official MCP Apps example server (server-basic-vanillajs): tool `get-time`, app `ui://get-time/mcp-app.html`. */
  apps_example: string;
  /** `mcp-edge bridge` running server-everything over stdio. */
  bridge: string;
  /** `mcp-edge bridge --manifest test/upstreams/fixture-plugin.json` (the stdio fixture). */
  bridge_fixture: string;
  /** Base URL of `mcp-edge bridge --plugins test/upstreams/plugins` (github: the stdio fixture; everything). */
  bridge_plugins: string;
  /** Base URL of `--plugins test/upstreams/provider-plugins`: the provider's github manifest as documented. */
  bridge_provider: string;
  /** The stdio fixture behind `--max-processes 1`. */
  bridge_capped: string;
  bridge_token: string;
  /** test/upstreams/model-providers.ts: OpenAI-compatible, Workers AI and Vectorize REST wire formats. */
  model_providers: string;
  /** The Client ID Metadata Document server: `PUT /documents/<path>`, served as https://client-metadata.test/<path>. */
  metadata_documents: string;
  /** The OpenID Provider of the auth tests (its issuer; `/test-control/…` beside it). */
  oidc_provider: string;
  /** The notes upstream's authorization server (another issuer than mcp-edge) and its MCP endpoint. */
  notes_issuer: string;
  notes_mcp: string;
  /** The notes upstream again, its authorization server neither advertising nor sending RFC 9207 `iss`. */
  plain_issuer: string;
  plain_mcp: string;
  /** The hostile OAuth server (test/upstreams/hostile-oauth.ts): `<it>/<case>/mcp`, `<it>/<case>/as`, `<it>/test-control/<case>`. */
  hostile_oauth: string;
}

export function upstreams(): TestUpstreams {
  return JSON.parse(env.TEST_UPSTREAMS) as TestUpstreams;
}

export function fixtureUrl(behaviour: string): string {
  return `${upstreams().fixture}/${behaviour}/mcp`;
}

/** POSTs a control request to the fixture server (e.g. /control/mutable, /control/restart). */
export async function controlFixture(path: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${upstreams().fixture}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`fixture control ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** Registers `url` as a source of `owner` (name made unique unless given). */
export function registerSource(
  owner: TestUser,
  url: string,
  overrides: Record<string, unknown> = {},
): Promise<ApiResponse<SourceDetailBody>> {
  return api<SourceDetailBody>(owner, "POST", "/api/sources", {
    body: { name: `Up ${crypto.randomUUID().slice(0, 6)}`, url, ...overrides },
  });
}

export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

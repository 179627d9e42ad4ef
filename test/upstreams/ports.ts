/**
 * The loopback ports and URLs of the test upstreams. vitest.config.ts reserves the
 * ports once (it and the global setup run in the same Node process) and hands the URLs to the
 * Worker as the TEST_UPSTREAMS binding; test/upstreams/global-setup.ts starts the servers on them.
 */
import { randomBytes } from "node:crypto";
import { freePort } from "../../bin/lib/ports";

export interface UpstreamPorts {
  fixture: number;
  everythingHttp: number;
  everythingSse: number;
  /** The official MCP Apps example server (@modelcontextprotocol/server-basic-vanillajs), stateless streamable HTTP at /mcp. */
  appsExample: number;
  bridge: number;
  bridgeFixture: number;
  /** `mcp-edge bridge --plugins test/upstreams/plugins`. */
  bridgePlugins: number;
  /** `--plugins test/upstreams/provider-plugins` (the provider's manifest as documented), with an empty PATH. */
  bridgeProvider: number;
  /** The stdio fixture behind a bridge that runs one process at most. */
  bridgeCapped: number;
  bridgeToken: string;
  /** test/upstreams/model-providers.ts: the model providers' documented wire formats. */
  modelProviders: number;
  /** The Client ID Metadata Document server (test/upstreams/metadata-documents.ts). */
  metadataDocuments: number;
  /** The OpenID Provider users sign in with in the auth tests (test/upstreams/oidc-provider.ts). */
  oidcProvider: number;
  /** The notes upstream's authorization server and its MCP resource server (test/upstreams/oauth-resource-server.ts). */
  notesIssuer: number;
  notesServer: number;
  /** The same pair again, its authorization server neither advertising nor sending RFC 9207 `iss` (the honest server of a mix-up). */
  plainIssuer: number;
  plainServer: number;
  /** test/upstreams/hostile-oauth.ts: an attacker's MCP endpoint and authorization server, recording what they receive. */
  hostileOAuth: number;
}

const ENV_KEY = "MCP_EDGE_TEST_UPSTREAMS";

/** Reserves the ports (once per process) and remembers them for the global setup. */
export async function reserveUpstreamPorts(): Promise<UpstreamPorts> {
  const known = process.env[ENV_KEY];
  if (known) return JSON.parse(known) as UpstreamPorts;
  const ports: UpstreamPorts = {
    fixture: await freePort(),
    everythingHttp: await freePort(),
    everythingSse: await freePort(),
    appsExample: await freePort(),
    bridge: await freePort(),
    bridgeFixture: await freePort(),
    bridgePlugins: await freePort(),
    bridgeProvider: await freePort(),
    bridgeCapped: await freePort(),
    bridgeToken: randomBytes(24).toString("base64url"),
    modelProviders: await freePort(),
    metadataDocuments: await freePort(),
    oidcProvider: await freePort(),
    notesIssuer: await freePort(),
    notesServer: await freePort(),
    plainIssuer: await freePort(),
    plainServer: await freePort(),
    hostileOAuth: await freePort(),
  };
  process.env[ENV_KEY] = JSON.stringify(ports);
  return ports;
}

/** The TEST_UPSTREAMS binding: what the Worker's tests register as sources. */
export function upstreamUrls(ports: UpstreamPorts): Record<string, string> {
  const base = (port: number) => `http://127.0.0.1:${port}`;
  return {
    fixture: base(ports.fixture),
    everything_http: `${base(ports.everythingHttp)}/mcp`,
    everything_sse: `${base(ports.everythingSse)}/sse`,
    apps_example: `${base(ports.appsExample)}/mcp`,
    bridge: `${base(ports.bridge)}/mcp`,
    bridge_fixture: `${base(ports.bridgeFixture)}/mcp`,
    bridge_plugins: base(ports.bridgePlugins),
    bridge_provider: base(ports.bridgeProvider),
    bridge_capped: `${base(ports.bridgeCapped)}/mcp`,
    bridge_token: ports.bridgeToken,
    model_providers: base(ports.modelProviders),
    metadata_documents: base(ports.metadataDocuments),
    oidc_provider: base(ports.oidcProvider),
    notes_issuer: base(ports.notesIssuer),
    notes_mcp: `${base(ports.notesServer)}/mcp`,
    plain_issuer: base(ports.plainIssuer),
    plain_mcp: `${base(ports.plainServer)}/mcp`,
    hostile_oauth: base(ports.hostileOAuth),
  };
}

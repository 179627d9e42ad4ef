/**
 * How mcp-edge identifies itself to upstream authorization servers: its own Client ID Metadata
 * Document (the MCP authorization spec's preferred client identification), served at
 * GATEWAY_CLIENT_PATH on its origin, whose `client_id` is the document's own URL and whose one
 * redirect URI is the upstream callback. A server that does not take metadata documents gets a
 * Dynamic Client Registration with the same metadata (the SDK's `auth()` chooses), and the user may
 * give a client id and secret instead.
 */
import type { OAuthClientMetadata } from "../mcp-client/oauth";

export const GATEWAY_CLIENT_PATH = "/oauth/gateway-client.json";
export const UPSTREAM_CALLBACK_PATH = "/oauth/upstream/callback";
export const UPSTREAM_START_PATH = "/oauth/upstream/start";
/** The link a call needing authorization carries: opened in a signed-in browser, it starts connecting. */
export const UPSTREAM_CONNECT_PATH = "/oauth/upstream/connect";
const CLIENT_NAME = "mcp-edge gateway";

export interface GatewayClientUrls {
  origin: string;
  redirectUri: string;
  /** Undefined when the document's URL is not https (an authorization server could not fetch it). */
  clientMetadataUrl: string | undefined;
}

/**
 * `GATEWAY_CLIENT_METADATA_URL` overrides where servers fetch the document (a deployment whose
 * public hostname differs, and the tests' reserved metadata host); it must serve what
 * GATEWAY_CLIENT_PATH serves.
 */
export function gatewayClientUrls(origin: string, env: Pick<Env, "GATEWAY_CLIENT_METADATA_URL">): GatewayClientUrls {
  const configured = env.GATEWAY_CLIENT_METADATA_URL?.trim();
  const url = configured ? configured : `${origin}${GATEWAY_CLIENT_PATH}`;
  return { origin, redirectUri: `${origin}${UPSTREAM_CALLBACK_PATH}`, clientMetadataUrl: url.startsWith("https://") ? url : undefined };
}

/** The client metadata: the DCR body, and (with client_id) the metadata document. */
export function gatewayClientMetadata(urls: GatewayClientUrls): OAuthClientMetadata {
  return {
    client_name: CLIENT_NAME,
    client_uri: urls.origin,
    redirect_uris: [urls.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    // A public client: PKCE protects the code; no secret to keep in a metadata document.
    token_endpoint_auth_method: "none",
  };
}

/** The document served at GATEWAY_CLIENT_PATH. */
export function gatewayClientDocument(urls: GatewayClientUrls): Record<string, unknown> {
  return { client_id: urls.clientMetadataUrl ?? `${urls.origin}${GATEWAY_CLIENT_PATH}`, ...gatewayClientMetadata(urls) };
}

/**
 * How mcp-edge identifies itself to upstream authorization servers: its own Client ID Metadata
 * Document (the MCP authorization spec's preferred client identification), served at
 * GATEWAY_CLIENT_PATH on its origin, whose `client_id` is the document's own URL and whose one
 * redirect URI is the upstream callback. A server that does not take metadata documents gets a
 * Dynamic Client Registration with the same metadata (the SDK's `auth()` chooses), and the user may
 * give a client id and secret instead.
 *
 * Against mix-up (RFC 9700 §4.4, decision 0047) a client that is registered at one server — by
 * DCR, or by the user — gets a redirect URI of that server's own, `/oauth/upstream/callback/<tag of
 * its issuer>`, and an answer is taken only at the redirect URI its flow was sent with
 * (flow-binding.ts). The metadata document, one client for every server, lists the plain callback
 * alone and is offered only to servers that send RFC 9207 `iss`, which then binds the answer.
 */
import type { OAuthClientMetadata } from "../mcp-client/oauth";
import { sha256Hex } from "../lib/encoding";
import { GATEWAY_CLIENT_PATH, UPSTREAM_CALLBACK_PATH } from "./paths";
const CLIENT_NAME = "mcp-edge gateway";

/** What one exchange identifies mcp-edge with. */
export interface GatewayClientUrls {
  origin: string;
  /** The redirect URI sent (the metadata document's, or an issuer's own: flow-binding.ts). */
  redirectUri: string;
  /**
   * Undefined when the document is not offered: its URL is not https (an authorization server could
   * not fetch it), or this exchange's server is not to get it (flow-binding.ts).
   */
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

/** An issuer's tag in its redirect URI: 32 hex digits of a SHA-256 (path safe; not a secret — only distinct per issuer). */
export async function issuerTag(issuer: string): Promise<string> {
  return (await sha256Hex(`upstream issuer:${issuer}`)).slice(0, 32);
}

/** The redirect URI of a client registered at `issuer` alone (DCR, or by the user). */
export async function issuerRedirectUri(origin: string, issuer: string): Promise<string> {
  return `${origin}${UPSTREAM_CALLBACK_PATH}/${await issuerTag(issuer)}`;
}

/** The client metadata: the DCR body (with the exchange's redirect URI), and (with client_id) the metadata document. */
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

/** The document served at GATEWAY_CLIENT_PATH: the plain callback is its one redirect URI, whatever server fetches it. */
export function gatewayClientDocument(urls: GatewayClientUrls): Record<string, unknown> {
  const metadata = gatewayClientMetadata({ ...urls, redirectUri: `${urls.origin}${UPSTREAM_CALLBACK_PATH}` });
  return { client_id: urls.clientMetadataUrl ?? `${urls.origin}${GATEWAY_CLIENT_PATH}`, ...metadata };
}

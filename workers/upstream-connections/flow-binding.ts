/**
 * A connect bound to the authorization server it started with, against mix-up (RFC 9700 §4.4;
 * decision 0047). A source's upstream names its authorization server, so a malicious one can name
 * an attacker's, which bounces the browser to an honest server; if the honest server's answer came
 * back to a callback that takes any server's answers, the code and the PKCE verifier would go to
 * the attacker's token endpoint. An answer is therefore taken only where the flow's own server
 * could have sent it:
 *
 * - a client registered at one server (DCR, or by the user) has a redirect URI of that server's own
 *   (`/oauth/upstream/callback/<tag of its issuer>`): another server holds no registration with it,
 *   so its answers cannot arrive there (RFC 9700 §4.4.2);
 * - the metadata document is one client for every server, so a redirect URI cannot tell servers
 *   apart; it is offered only to a server that advertises RFC 9207 `iss`, and its answers must carry
 *   `iss` (the SDK compares it with the flow's issuer).
 *
 * The flow keeps its issuer and redirect URI (sealed); the callback compares them with where the
 * answer arrived, and with the source's authorization server now.
 */
import type { OAuthDiscoveryState, StoredOAuthClientInformation } from "../mcp-client/oauth";
import { AppError } from "../lib/errors";
import { type GatewayClientUrls, issuerRedirectUri } from "./gateway-client";
import { UPSTREAM_CALLBACK_PATH } from "./paths";
import type { OAuthState } from "./gateway-oauth-client";

export interface FlowBinding {
  issuer: string;
  /** What the flow identifies with: the plain callback and the metadata document, or the issuer's own redirect URI and no document. */
  urls: GatewayClientUrls;
}

/** The issuer discovery found (RFC 8414 `issuer`, checked by the SDK against where the metadata was fetched). */
export function issuerOf(discovery: OAuthDiscoveryState | undefined): string | undefined {
  return discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
}

/** A field of the server's metadata that only a literal true turns on (as the SDK reads them). */
function metadataSays(discovery: OAuthDiscoveryState | undefined, field: string): boolean {
  const metadata: object | undefined = discovery?.authorizationServerMetadata;
  return metadata !== undefined && field in metadata && Reflect.get(metadata, field) === true;
}

/** Whether the server says it sends `iss` on its answers (RFC 9207). */
export function advertisesIss(discovery: OAuthDiscoveryState | undefined): boolean {
  return metadataSays(discovery, "authorization_response_iss_parameter_supported");
}

function takesMetadataDocuments(discovery: OAuthDiscoveryState | undefined): boolean {
  return metadataSays(discovery, "client_id_metadata_document_supported");
}

/** Whether a registration lists `redirectUri` (RFC 7591 answers echo the registered metadata). */
export function registeredFor(client: StoredOAuthClientInformation, redirectUri: string): boolean {
  return "redirect_uris" in client && Array.isArray(client.redirect_uris) && client.redirect_uris.includes(redirectUri);
}

/**
 * How a start identifies mcp-edge at its server and where the answer is to come back. A stored
 * client that cannot keep the binding is dropped (`state` changes), so a new one is made: the
 * metadata document for a server that no longer advertises `iss`, a registration made before
 * redirect URIs were per issuer.
 */
export async function bindToIssuer(base: GatewayClientUrls, state: OAuthState): Promise<FlowBinding> {
  const issuer = issuerOf(state.discovery);
  if (!issuer) throw new AppError("conflict", "The source's authorization server is not known yet: refresh the source, then connect");
  const ownRedirect = { origin: base.origin, redirectUri: await issuerRedirectUri(base.origin, issuer), clientMetadataUrl: undefined };
  const documentBound = base.clientMetadataUrl !== undefined && takesMetadataDocuments(state.discovery) && advertisesIss(state.discovery);
  const client = state.client;
  const keeps =
    client === undefined ||
    (state.identification === "metadata_document"
      ? documentBound
      : state.identification === "manual" || registeredFor(client, ownRedirect.redirectUri));
  if (!keeps) {
    state.client = undefined;
    state.identification = null;
  }
  const viaDocument = documentBound && (state.client === undefined || state.identification === "metadata_document");
  return { issuer, urls: viaDocument ? base : ownRedirect };
}

/** What a flow kept of its binding (absent for a flow started before bindings existed). */
export interface KeptBinding {
  issuer?: string | undefined;
  redirectUri?: string | undefined;
}

const MIX_UP =
  "This answer did not come back the way this connect was sent out: it may come from another authorization server than the " +
  "source's (a mix-up), so it was refused and nothing was sent on. Start connecting again, and check that the sign-in page " +
  "you reach belongs to the server the connect page named.";

/** Whether a flow was sent with the metadata document's redirect URI (not an issuer's own). */
export function isDocumentRedirect(redirectUri: string): boolean {
  return new URL(redirectUri).pathname === UPSTREAM_CALLBACK_PATH;
}

/**
 * Refuses an answer that arrived at another redirect URI than its flow's, belongs to a flow whose
 * issuer is no longer the source's, or — at the metadata document's redirect URI — carries no `iss`.
 */
export function checkArrival(kept: KeptBinding, answer: { path: string; iss: string | undefined }, issuerNow: string | undefined): void {
  if (!kept.issuer || !kept.redirectUri || new URL(kept.redirectUri).pathname !== answer.path) throw new AppError("forbidden", MIX_UP);
  if (issuerNow !== kept.issuer) throw new AppError("forbidden", MIX_UP);
  if (isDocumentRedirect(kept.redirectUri) && answer.iss === undefined) throw new AppError("forbidden", MIX_UP);
}

/** The warnings the source's connection carries: shown over REST and on the connect page. */
export function bindingWarnings(discovery: OAuthDiscoveryState | undefined, ownRedirectUri: string | undefined): string[] {
  const issuer = issuerOf(discovery);
  if (!issuer || advertisesIss(discovery)) return [];
  return [
    `The authorization server ${issuer} does not advertise RFC 9207 \`iss\` on its answers, so mcp-edge cannot read from an answer which ` +
      `server sent it: it accepts this server's answers only at its own redirect URI${ownRedirectUri ? ` (${ownRedirectUri})` : ""}. ` +
      `When you connect, check that the sign-in page you reach belongs to ${hostOf(issuer)}.`,
  ];
}

function hostOf(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}

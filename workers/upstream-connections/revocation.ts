/**
 * Token revocation (RFC 7009) at an upstream's authorization server, when its metadata names a
 * revocation endpoint. The SDK's client auth has no revocation helper, so this is the one OAuth
 * request written here: a form POST per token (refresh token first: revoking it ends the grant at
 * most servers), authenticated as the token requests are (client_secret_basic with a secret, else
 * the client id in the body).
 */
import type { OAuthFetch } from "./oauth-fetch";
import type { OAuthState } from "./gateway-oauth-client";

const REVOKE_TIMEOUT_MS = 10_000;

/** True when the server accepted every revocation it was sent; false when it offers none or refused one. */
export async function revokeTokens(state: OAuthState, fetchFn: OAuthFetch): Promise<boolean> {
  const metadata = state.discovery?.authorizationServerMetadata;
  const endpoint =
    metadata && "revocation_endpoint" in metadata && typeof metadata.revocation_endpoint === "string"
      ? metadata.revocation_endpoint
      : undefined;
  const client = state.client;
  const tokens = state.tokens;
  if (!endpoint || !client || !tokens) return false;
  const sent: [string, string][] = [];
  if (tokens.refresh_token) sent.push([tokens.refresh_token, "refresh_token"]);
  sent.push([tokens.access_token, "access_token"]);
  let accepted = true;
  for (const [token, hint] of sent) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    if (client.client_secret)
      headers["authorization"] = `Basic ${btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`)}`;
    else body.set("client_id", client.client_id);
    const response = await fetchFn(endpoint, { method: "POST", headers, body, signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS) });
    await response.body?.cancel();
    if (!response.ok) accepted = false;
  }
  return accepted;
}

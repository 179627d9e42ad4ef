/**
 * The web console's OAuth client (decision 0055): registered by the Worker itself, not by the
 * browser, so the consent page can say it is this server's own app. One per issuer, made at first
 * use with the library's `createClient` (a public client: PKCE, no secret; its one redirect URI is
 * the console at the issuer's root; such records never expire), its id kept in OAUTH_KV under
 * `mcpe-console-client:<issuer>` and handed to the console at GET /oauth/console-client.
 *
 * Recognised by that id alone — never by name or redirect URI — so a dynamically registered client
 * calling itself "mcp-edge console" stays "not verified". It gets no privilege: the consent page
 * asks as for any client (gateway:admin unticked), and its grants follow every rule of any other.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";

export const CONSOLE_CLIENT_NAME = "mcp-edge console";

function keyOf(issuer: string): string {
  return `mcpe-console-client:${issuer}`;
}

/** The console's redirect URI: the console itself, at the issuer's root. */
export function consoleRedirectUri(issuer: string): string {
  return `${issuer}/`;
}

/**
 * The console's client id for `issuer`, registered now when there is none (or the one kept is
 * gone). Two first uses at once may each register one; the id kept last is the console's, and a
 * console holding the other is shown as any registered client until it signs in again.
 */
export async function consoleClientId(oauth: OAuthHelpers, issuer: string, env: Pick<Env, "OAUTH_KV">): Promise<string> {
  const kept = await env.OAUTH_KV.get(keyOf(issuer));
  if (kept !== null) {
    const client = await oauth.lookupClient(kept);
    if (client?.redirectUris.length === 1 && client.redirectUris[0] === consoleRedirectUri(issuer)) return kept;
  }
  const created = await oauth.createClient({
    clientName: CONSOLE_CLIENT_NAME,
    redirectUris: [consoleRedirectUri(issuer)],
    tokenEndpointAuthMethod: "none",
    grantTypes: ["authorization_code", "refresh_token"],
    responseTypes: ["code"],
  });
  await env.OAUTH_KV.put(keyOf(issuer), created.clientId);
  return created.clientId;
}

/** Whether `clientId` is this issuer's console: the id the Worker registered, nothing else. */
export async function isConsoleClient(issuer: string, env: Pick<Env, "OAUTH_KV">, clientId: string): Promise<boolean> {
  return (await env.OAUTH_KV.get(keyOf(issuer))) === clientId;
}

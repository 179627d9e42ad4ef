// @ts-check
// The console signs in like any browser-based MCP client: a public OAuth client (no secret) with
// PKCE S256, asking for the root resource (this origin: every route) and no `scope` — so the
// consent page offers every scope. Its client is the one the Worker registered for it
// (GET /oauth/console-client, decision 0055), so the consent page names it as this server's own
// app; the id is kept in localStorage for refreshing and signing out. Tokens go to sessionStorage;
// the access token is refreshed before it expires and once more when the Worker answers 401;
// signing out revokes both tokens and ends the sign-in session of the /authorize page. Endpoints
// come from the authorization server metadata.
import { clearTokens, forgetClient, getClient, getTokens, setClient, setPending, setTokens, takePending } from "./session.js";

/** Where the Worker hands out the console's own client id and redirect URI. */
const CONSOLE_CLIENT_PATH = "/oauth/console-client";
/** Refresh this long before the access token expires, so no request goes out with a dying one. */
const REFRESH_MARGIN_MS = 60_000;

export class SignInError extends Error {}

let metadataRequest;
function metadata() {
  metadataRequest ??= fetch("/.well-known/oauth-authorization-server").then(async (response) => {
    if (!response.ok) throw new SignInError(`The Worker's OAuth metadata is unavailable (HTTP ${response.status})`);
    return response.json();
  });
  metadataRequest.catch(() => {
    metadataRequest = undefined;
  });
  return metadataRequest;
}

/** @param {ArrayBuffer | Uint8Array} bytes */
function base64url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function randomString() {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * @param {Response} response
 * @returns {Promise<{ error: string, description: string }>}
 */
async function oauthErrorOf(response) {
  const body = await response.json().catch(() => ({}));
  return { error: body.error ?? `http_${response.status}`, description: body.error_description ?? response.statusText };
}

/** The console's own client, as the Worker registered it (asked for at every sign-in: one small request). */
async function consoleClient() {
  const response = await fetch(CONSOLE_CLIENT_PATH, { cache: "no-store" });
  if (!response.ok) {
    const { error, description } = await oauthErrorOf(response);
    throw new SignInError(`The Worker did not name the console's OAuth client: ${description} (${error})`);
  }
  const { client_id, redirect_uri } = await response.json();
  const client = { client_id, redirect_uri, last_used_at: Date.now() };
  setClient(client);
  return client;
}

/** Sends the browser to /authorize; `scopes` (step-up) asks for exactly those, none = every scope offered. */
/** @param {{ scopes?: string[] }} [options] */
export async function beginSignIn({ scopes } = {}) {
  const meta = await metadata();
  const client = await consoleClient();
  const verifier = randomString();
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const state = randomString();
  setPending({ state, verifier, client_id: client.client_id, redirect_uri: client.redirect_uri, return_hash: location.hash });
  const url = new URL(meta.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    // The root resource (the issuer's origin): one token for the REST API, every MCP endpoint and chat.
    resource: meta.issuer,
    ...(scopes && scopes.length > 0 ? { scope: scopes.join(" ") } : {}),
  }).toString();
  location.assign(url.href);
}

/** Whether this page load is /authorize sending the browser back (with a code or an error). */
export function isSignInCallback() {
  const params = new URLSearchParams(location.search);
  return params.has("state") && (params.has("code") || params.has("error"));
}

/** @param {{ access_token: string, refresh_token?: string, scope?: string, expires_in?: number }} body the token endpoint's answer */
function storeTokens(body) {
  setTokens({
    access_token: body.access_token,
    refresh_token: body.refresh_token,
    scope: body.scope ?? "",
    expires_at: Date.now() + (Number(body.expires_in) || 3600) * 1000,
  });
  const client = getClient();
  if (client) setClient({ ...client, last_used_at: Date.now() });
}

const DENIED = "You did not allow the console to use your account, so it is not signed in.";

/** Finishes the sign-in this tab started: checks state and issuer, redeems the code. */
export async function completeSignIn() {
  const params = new URLSearchParams(location.search);
  const pending = takePending();
  // The code must not stay in the address bar or the history.
  history.replaceState(null, "", `/${pending?.return_hash ?? ""}`);
  if (!pending || params.get("state") !== pending.state)
    throw new SignInError("This sign-in answer does not belong to a sign-in started in this tab. Sign in again.");
  const meta = await metadata();
  // RFC 9207: the answer must come from this Worker's own authorization server.
  if (params.get("iss") !== meta.issuer) throw new SignInError("This sign-in answer names another authorization server. Sign in again.");
  const error = params.get("error");
  if (error)
    throw new SignInError(error === "access_denied" ? DENIED : `Sign-in failed: ${params.get("error_description") ?? error} (${error})`);
  const response = await fetch(meta.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: String(params.get("code")),
      redirect_uri: pending.redirect_uri,
      client_id: pending.client_id,
      code_verifier: pending.verifier,
    }),
  });
  if (!response.ok) {
    const { error: code, description } = await oauthErrorOf(response);
    if (code === "invalid_client") forgetClient();
    throw new SignInError(`The Worker did not accept the sign-in: ${description} (${code}). Sign in again.`);
  }
  storeTokens(await response.json());
}

let refreshing;
/** Trades the refresh token for new tokens (rotation: the old one is spent); false when that is impossible. */
export function refreshTokens() {
  refreshing ??= (async () => {
    const tokens = getTokens();
    const client = getClient();
    if (!tokens?.refresh_token || !client) return false;
    const meta = await metadata();
    const response = await fetch(meta.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: client.client_id }),
    });
    if (!response.ok) {
      clearTokens();
      return false;
    }
    storeTokens(await response.json());
    return true;
  })()
    .catch(() => false)
    .finally(() => {
      refreshing = undefined;
    });
  return refreshing;
}

/** The access token to send now, refreshed first when it is about to expire. */
export async function currentAccessToken() {
  const tokens = getTokens();
  if (tokens && tokens.expires_at - Date.now() < REFRESH_MARGIN_MS) await refreshTokens();
  return getTokens()?.access_token ?? "";
}

/** The scopes the current token grants (as the token endpoint listed them). */
export function grantedScopes() {
  return (getTokens()?.scope ?? "").split(" ").filter((scope) => scope !== "");
}

/** Revokes both tokens and ends this browser's /authorize sign-in; forgets the tokens whatever happens. */
export async function signOut() {
  const tokens = getTokens();
  const client = getClient();
  clearTokens();
  const meta = await metadata().catch(() => undefined);
  /**
   * @param {string} token
   * @param {"access_token" | "refresh_token"} hint
   */
  const revoke = (token, hint) =>
    fetch(meta.revocation_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, token_type_hint: hint, client_id: /** @type {{ client_id: string }} */ (client).client_id }),
    }).catch(() => undefined);
  if (meta?.revocation_endpoint && tokens && client) {
    await Promise.all([
      tokens.refresh_token ? revoke(tokens.refresh_token, "refresh_token") : null,
      revoke(tokens.access_token, "access_token"),
    ]);
  }
  await fetch("/authorize/sign-out", { method: "POST" }).catch(() => undefined);
}

// @ts-check
// The console's OAuth state in the browser. Tokens live in sessionStorage: they survive reloads of
// this tab, are gone when it closes, and are sent nowhere but this Worker's own origin. The
// console's client id (the Worker's own registration of it, decision 0055; a public client: its id
// is no secret) lives in localStorage, for refreshing and revoking tokens in every tab.
const TOKENS = "mcp-edge.oauth-tokens";
const PENDING = "mcp-edge.oauth-pending";
const CLIENT = "mcp-edge.oauth-client";

/** @typedef {{ access_token: string, refresh_token?: string, expires_at: number, scope: string }} Tokens */
/** @typedef {{ state: string, verifier: string, redirect_uri: string, client_id: string, return_hash?: string, scopes?: string[] }} Pending */
/** @typedef {{ client_id: string, redirect_uri: string, last_used_at: number }} ClientRegistration */

/**
 * @param {Storage} storage
 * @param {string} key
 * @returns {Record<string, unknown> | undefined} the stored object, or undefined
 */
function read(storage, key) {
  try {
    const value = JSON.parse(storage.getItem(key) ?? "null");
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * { access_token, refresh_token, expires_at (ms), scope } or undefined.
 * @returns {Tokens | undefined}
 */
export function getTokens() {
  const tokens = read(sessionStorage, TOKENS);
  return tokens && typeof tokens["access_token"] === "string" ? /** @type {Tokens} */ (tokens) : undefined;
}

/** @param {Tokens} tokens */
export function setTokens(tokens) {
  sessionStorage.setItem(TOKENS, JSON.stringify(tokens));
}

export function clearTokens() {
  sessionStorage.removeItem(TOKENS);
}

/** The bearer token to send now ("" when signed out). */
export function getToken() {
  return getTokens()?.access_token ?? "";
}

/** The authorization in progress across the redirect to /authorize: { state, verifier, redirect_uri, client_id, return_hash }. */
/** @returns {Pending | undefined} */
export function takePending() {
  const pending = read(sessionStorage, PENDING);
  sessionStorage.removeItem(PENDING);
  return /** @type {Pending | undefined} */ (pending);
}

/** @param {Pending} pending */
export function setPending(pending) {
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
}

/**
 * { client_id, redirect_uri, last_used_at } of the console's client as last fetched, or undefined.
 * @returns {ClientRegistration | undefined}
 */
export function getClient() {
  const client = read(localStorage, CLIENT);
  return client && typeof client["client_id"] === "string" ? /** @type {ClientRegistration} */ (client) : undefined;
}

/** @param {ClientRegistration} client */
export function setClient(client) {
  localStorage.setItem(CLIENT, JSON.stringify(client));
}

export function forgetClient() {
  localStorage.removeItem(CLIENT);
}

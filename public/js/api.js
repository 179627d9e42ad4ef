// @ts-check
// REST calls to this Worker with the signed-in user's OAuth access token, and one error type that
// carries the API's own { error: { code, message, field? } } so every panel can show it as it came.
import { currentAccessToken, refreshTokens } from "./oauth.js";

export class ApiError extends Error {
  /**
   * @param {number} status HTTP status (0: the Worker could not be reached)
   * @param {string} code
   * @param {string} message
   * @param {string} [field]
   */
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    /** @type {string[] | undefined} The scopes a 403 step-up asks for. */
    this.neededScopes = undefined;
  }

  /** "unauthorized (401): Invalid token" — the code and status make the cause plain. */
  describe() {
    const where = this.field ? ` [${this.field}]` : "";
    return `${this.message}${where} (${this.code}, HTTP ${this.status})`;
  }
}

/** Listeners told when the Worker refuses the token and no refresh helped (revoked, or the grant ended). */
/** @type {Set<(error: ApiError) => void>} */
const unauthorizedListeners = new Set();
/** @param {(error: ApiError) => void} listener */
export function onUnauthorized(listener) {
  unauthorizedListeners.add(listener);
}

/** Called by every client (REST, MCP, chat) when the signed-in token is refused. */
/** @param {ApiError} error */
export function notifyUnauthorized(error) {
  for (const listener of unauthorizedListeners) listener(error);
}

/**
 * fetch() with the access token: refreshed first when it is about to expire, and once more (then
 * the request is sent again) when the Worker answers 401 — an access token can end early.
 * @param {string} input
 * @param {RequestInit & { headers?: Record<string, string> }} [init]
 */
export async function authorizedFetch(input, init = {}) {
  /** @param {string} token */
  const send = (token) => fetch(input, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } });
  const response = await send(await currentAccessToken());
  if (response.status !== 401 || !(await refreshTokens())) return response;
  return send(await currentAccessToken());
}

/** The REST error body's `error`, as far as the console reads it. */
/** @typedef {{ message?: unknown, code?: unknown, field?: string, details?: { required_scopes?: string[] } }} RestError */

/**
 * The scopes a 403 names (`WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`), else undefined.
 * @param {Response} response
 * @param {RestError | undefined} rest the REST error body's `error`, if any
 * @returns {string[] | undefined}
 */
function neededScopes(response, rest) {
  const challenge = response.headers.get("www-authenticate") ?? "";
  if (response.status !== 403 || !challenge.includes('error="insufficient_scope"')) return undefined;
  const named = /scope="([^"]*)"/.exec(challenge)?.[1];
  if (named) return named.split(" ").filter((scope) => scope !== "");
  const details = rest && rest.details && Array.isArray(rest.details.required_scopes) ? rest.details.required_scopes : undefined;
  return details;
}

/**
 * Turns a non-2xx response into an ApiError, reading the REST or JSON-RPC error body if there is one.
 * @param {Response} response
 */
export async function errorFrom(response) {
  const text = await response.text().catch(() => "");
  /** @type {{ error?: RestError } | undefined} */
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const rest = body && typeof body === "object" ? body.error : undefined;
  let error;
  if (rest && typeof rest === "object" && typeof rest.message === "string") {
    const code = typeof rest.code === "string" ? rest.code : String(rest.code ?? response.status);
    error = new ApiError(response.status, code, rest.message, rest.field);
  } else {
    const snippet = text.trim().slice(0, 200) || response.statusText || "no details";
    error = new ApiError(response.status, `http_${response.status}`, snippet);
  }
  // A step-up: what to ask for when signing in again (the console offers it next to the error).
  error.neededScopes = neededScopes(response, rest);
  return error;
}

/**
 * @param {string} path
 * @param {{ method?: string, body?: unknown, accept?: string }} [options]
 */
export async function api(path, { method = "GET", body, accept = "application/json" } = {}) {
  let response;
  try {
    response = await authorizedFetch(path, {
      method,
      headers: { accept, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, "network", `Could not reach the Worker (${/** @type {Error} */ (error).message})`);
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401) notifyUnauthorized(error);
    throw error;
  }
  if (response.status === 204 || accept !== "application/json") return response;
  return response.json();
}

/** A message for any thrown value: ApiError and McpError describe themselves. */
/** @param {unknown} error */
export function messageOf(error) {
  if (error && typeof (/** @type {{ describe?: unknown }} */ (error).describe) === "function")
    return /** @type {ApiError} */ (error).describe();
  return error instanceof Error ? error.message : String(error);
}

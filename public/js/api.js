// REST calls to this Worker with the signed-in user's bearer token, and one error type that carries
// the API's own { error: { code, message, field? } } so every panel can show it as it came.
import { getToken } from "./session.js";

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }

  /** "unauthorized (401): Invalid token" — the code and status make the cause plain. */
  describe() {
    const where = this.field ? ` [${this.field}]` : "";
    return `${this.message}${where} (${this.code}, HTTP ${this.status})`;
  }
}

/** Listeners told when the API refuses the token (revoked while signed in). */
const unauthorizedListeners = new Set();
export function onUnauthorized(listener) {
  unauthorizedListeners.add(listener);
}

/** Called by every client (REST, MCP, chat) when the signed-in token is refused. */
export function notifyUnauthorized(error) {
  for (const listener of unauthorizedListeners) listener(error);
}

/** Turns a non-2xx response into an ApiError, reading the REST or JSON-RPC error body if there is one. */
export async function errorFrom(response) {
  const text = await response.text().catch(() => "");
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const rest = body && typeof body === "object" ? body.error : undefined;
  if (rest && typeof rest === "object" && typeof rest.message === "string") {
    const code = typeof rest.code === "string" ? rest.code : String(rest.code ?? response.status);
    return new ApiError(response.status, code, rest.message, rest.field);
  }
  const snippet = text.trim().slice(0, 200) || response.statusText || "no details";
  return new ApiError(response.status, `http_${response.status}`, snippet);
}

export async function api(path, { method = "GET", body, token = getToken(), accept = "application/json" } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, "network", `Could not reach the Worker (${error.message})`);
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401 && token === getToken()) notifyUnauthorized(error);
    throw error;
  }
  if (response.status === 204 || accept !== "application/json") return response;
  return response.json();
}

/** A message for any thrown value: ApiError and McpError describe themselves. */
export function messageOf(error) {
  if (error && typeof error.describe === "function") return error.describe();
  return error instanceof Error ? error.message : String(error);
}

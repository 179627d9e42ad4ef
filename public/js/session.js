// The bearer token lives in sessionStorage: it survives reloads of this tab and is gone when the
// tab closes; it is never sent anywhere but this Worker's own origin.
const KEY = "mcp-edge.token";

export function getToken() {
  return sessionStorage.getItem(KEY) ?? "";
}

export function setToken(token) {
  sessionStorage.setItem(KEY, token);
}

export function clearToken() {
  sessionStorage.removeItem(KEY);
}

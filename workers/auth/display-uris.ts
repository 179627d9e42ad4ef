/**
 * The display-only URLs of a dynamic registration (RFC 7591 §2): `client_uri`, `logo_uri`,
 * `tos_uri`, `policy_uri`, and their language-tagged forms (`client_uri#fr`). Nothing is ever sent
 * to them and this server shows none of them, so one that is not a usable https URL is dropped from
 * the registration instead of refusing it (RFC 7591 §3.2.1 lets the server replace or omit a value;
 * the response names what was registered). mcp-use 1.x registers `client_uri: ""`, and a refusal
 * left it no way to sign in. What decides where a code or token goes — redirect URIs, the token
 * endpoint's auth method, grant and response types — stays the library's strict check.
 */
import type { JsonObject } from "../lib/json";

const DISPLAY_URI_FIELDS = ["client_uri", "logo_uri", "tos_uri", "policy_uri"] as const;
/** Longer than any page, logo or policy address an app gives; a longer value is dropped. */
export const MAX_DISPLAY_URI_CHARS = 2048;

/** An absolute https URL without credentials, at most MAX_DISPLAY_URI_CHARS long. */
export function isUsableDisplayUri(value: unknown): value is string {
  if (typeof value !== "string" || value.length > MAX_DISPLAY_URI_CHARS) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === "https:" && url.username === "" && url.password === "";
}

function isDisplayUriField(key: string): boolean {
  const base = key.split("#", 1)[0];
  return DISPLAY_URI_FIELDS.some((field) => field === base);
}

/** The registration without the display-only URLs that are not usable (the rest as it came). */
export function withUsableDisplayUris(metadata: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(metadata).filter(([key, value]) => !isDisplayUriField(key) || isUsableDisplayUri(value)));
}

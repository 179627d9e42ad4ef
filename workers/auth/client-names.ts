/**
 * A client's name as this server keeps and shows it. The name comes from a registration or a
 * metadata document anyone may write, and the consent page shows it as the app asking for access:
 * a newline or a line separator could fake a second line ("Published by <a trusted domain>"),
 * bidi controls reorder what is read, zero-width and other invisible characters make a name look
 * like another, and a very long one pushes the page's facts out of view. So a name loses its
 * control and format characters (and the invisible fillers that pass for letters), its runs of
 * white space become one space, and it is cut to MAX_CLIENT_NAME_CHARS characters.
 */
import type { JsonObject } from "../lib/json";

export const MAX_CLIENT_NAME_CHARS = 100;

/** Line breaks and other controls (C0, C1), and the line and paragraph separators: a space each. */
const BREAKS = /[\p{Cc}\p{Zl}\p{Zp}]/gu;
/** Format characters (bidi controls, zero-width, tags, soft hyphen, BOM) and Hangul/Braille fillers: removed. */
const INVISIBLE = /[\p{Cf}\u115F\u1160\u3164\uFFA0\u2800]/gu;

/** The name as shown; `fallback` (the client id, cleaned the same way) when nothing visible is left. */
export function cleanClientName(name: string, fallback = ""): string {
  const cleaned = name.replace(BREAKS, " ").replace(INVISIBLE, "").replace(/\s+/gu, " ").trim();
  if (cleaned === "") return fallback === "" ? "" : cleanClientName(fallback);
  const chars = Array.from(cleaned);
  return chars.length <= MAX_CLIENT_NAME_CHARS
    ? cleaned
    : `${chars
        .slice(0, MAX_CLIENT_NAME_CHARS - 1)
        .join("")
        .trimEnd()}…`;
}

/**
 * A dynamic registration with its `client_name` cleaned (RFC 7591 §3.2.1 lets the server replace a
 * requested value; the response names what was registered); a name with nothing visible left is dropped.
 */
export function withCleanClientName(metadata: JsonObject): JsonObject {
  if (typeof metadata["client_name"] !== "string") return metadata;
  const name = cleanClientName(metadata["client_name"]);
  const { client_name: _dropped, ...rest } = metadata;
  return name === "" ? rest : { ...rest, client_name: name };
}

// @ts-check
// How the gateway /mcp names a source's tools and URIs (decision 0068): a tool `<slug>__<alias>`;
// a URI `<scheme>://<slug>__<rest>` (or `<scheme>:<slug>__<rest>` without `//`). The console's copy of
// workers/gateway/sources/gateway-names.ts and gateway-uris.ts (it cannot import the Worker's modules).

const SEPARATOR = "__";
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/)?/;

/**
 * A /mcp tool name's source and its name there; undefined for a built-in's name (no `__`).
 * @param {string} name
 * @returns {{ slug: string, name: string } | undefined}
 */
export function splitGatewayName(name) {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0 || at + SEPARATOR.length >= name.length) return undefined;
  return { slug: name.slice(0, at), name: name.slice(at + SEPARATOR.length) };
}

/**
 * A source's URI as /mcp names it; undefined when the URI has no plain scheme.
 * @param {string} slug
 * @param {string} uri
 */
export function gatewayUri(slug, uri) {
  const match = SCHEME.exec(uri);
  if (!match) return undefined;
  return `${match[0]}${slug}${SEPARATOR}${uri.slice(match[0].length)}`;
}

/**
 * A /mcp URI's source and the source's own URI; undefined for a built-in's URI (no slug after the scheme).
 * @param {string} uri
 * @returns {{ slug: string, uri: string } | undefined}
 */
export function splitGatewayUri(uri) {
  const match = SCHEME.exec(uri);
  if (!match) return undefined;
  const rest = uri.slice(match[0].length);
  const at = rest.indexOf(SEPARATOR);
  if (at <= 0) return undefined;
  return { slug: rest.slice(0, at), uri: `${match[0]}${rest.slice(at + SEPARATOR.length)}` };
}

/**
 * The gateway's naming rule for a source's resource URIs on /mcp (decision 0068), as clear as
 * `<slug>__<alias>` for its tools: the slug and `__` go in front of the part after the scheme —
 * after the `//` when there is one — and the scheme is kept, so a `ui://` resource stays `ui://`
 * (hosts render MCP Apps only from `ui://`; a peer's `backend+ui://` rewrite broke every app).
 *
 *   ui://weather/view.html → ui://<slug>__weather/view.html
 *   file:///etc/x          → file://<slug>__/etc/x
 *   urn:isbn:123           → urn:<slug>__isbn:123
 *   demo://r/{id}          → demo://<slug>__r/{id}   (a template, the same way)
 *
 * A slug never contains `__` (sources.schema.ts#slugify), so the first `__` after the scheme ends
 * it, and the rewrite is undone exactly. A built-in server's URI (`task://{id}`) is served as it is
 * and never has a slug there. A URI without a plain scheme (a template `{scheme}://x`) cannot be
 * named: undefined, and the caller leaves it out.
 *
 * One scheme is named its own way: a skill's `skill://` URI (skill-uris.ts, decision 0072), whose
 * path must keep ending in the skill's name, takes the slug as a first path segment of its own.
 * Both functions apply that rule to `skill://` URIs, so a source's skill files are named alike by
 * resources/list and skills/list, and a read of one is routed like any other.
 */
import { gatewaySkillUri, SKILL_URI_ROOT, splitGatewaySkillUri } from "./skill-uris";
import { GATEWAY_SEPARATOR } from "./sources.schema";

/** RFC 3986 `scheme ":"`, then the rest. */
const SCHEMED = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s;
/** What slugify makes: lower-case [a-z0-9_], starting with a letter, no leading, trailing or doubled underscore. */
const SLUG = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** Where the slug goes: after `scheme://`, or after `scheme:` when no `//` follows. */
function parts(uri: string): { head: string; body: string } | undefined {
  const match = SCHEMED.exec(uri);
  if (!match) return undefined;
  const scheme = match[1] ?? "";
  const rest = match[2] ?? "";
  return rest.startsWith("//") ? { head: `${scheme}://`, body: rest.slice(2) } : { head: `${scheme}:`, body: rest };
}

/** The source's URI (or URI template) as /mcp names it; undefined when it has no plain scheme. */
export function gatewayUri(slug: string, uri: string): string | undefined {
  if (uri.startsWith(SKILL_URI_ROOT)) return gatewaySkillUri(slug, uri);
  const split = parts(uri);
  return split && `${split.head}${slug}${GATEWAY_SEPARATOR}${split.body}`;
}

/** The source and its own URI that a /mcp URI names; undefined for a URI that is not a source's (a built-in's). */
export function splitGatewayUri(uri: string): { slug: string; uri: string } | undefined {
  if (uri.startsWith(SKILL_URI_ROOT)) return splitGatewaySkillUri(uri);
  const split = parts(uri);
  if (!split) return undefined;
  const at = split.body.indexOf(GATEWAY_SEPARATOR);
  const slug = at > 0 ? split.body.slice(0, at) : "";
  if (!SLUG.test(slug)) return undefined;
  return { slug, uri: `${split.head}${split.body.slice(at + GATEWAY_SEPARATOR.length)}` };
}

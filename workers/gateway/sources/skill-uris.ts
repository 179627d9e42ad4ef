/**
 * Where a source's skill lives on /mcp (decision 0072). The skills extension (SEP-2640) requires
 * a skill's `SKILL.md` at `skill://<skill-path>/SKILL.md` whose last path segment is the skill's
 * `name`, and the `SKILL.md` frontmatter verbatim (a host checks each file's digest and the
 * frontmatter against the entry). So neither the name nor the files may change: the source's slug
 * becomes an organisational prefix of its own, the first segment of the path.
 *
 *   skill://git-workflow/SKILL.md        → skill://<slug>__/git-workflow/SKILL.md
 *   skill://acme/billing/refunds/SKILL.md → skill://<slug>__/acme/billing/refunds/SKILL.md
 *
 * Reverse: a URI that starts `skill://<slug>__/` is the source's `skill://` + the rest. A slug never
 * contains `__` (sources.schema.ts), so the first `__` ends it; a built-in skill's URI never
 * contains `__/` right after its first segment. (The general rule for resource URIs inserts
 * `<slug>__` without a `/`, which would rename an unprefixed skill and break its entry.)
 */
import { GATEWAY_SEPARATOR } from "./sources.schema";

export const SKILL_URI_ROOT = "skill://";

/** The /mcp URI of a source's skill URI; undefined when it is not a `skill://` URI. */
export function gatewaySkillUri(slug: string, uri: string): string | undefined {
  if (!uri.startsWith(SKILL_URI_ROOT) || uri.length === SKILL_URI_ROOT.length) return undefined;
  return `${SKILL_URI_ROOT}${slug}${GATEWAY_SEPARATOR}/${uri.slice(SKILL_URI_ROOT.length)}`;
}

/** A /mcp skill URI split into the source's slug and the source's own URI; undefined for a built-in skill's. */
export function splitGatewaySkillUri(uri: string): { slug: string; uri: string } | undefined {
  if (!uri.startsWith(SKILL_URI_ROOT)) return undefined;
  const rest = uri.slice(SKILL_URI_ROOT.length);
  const at = rest.indexOf(`${GATEWAY_SEPARATOR}/`);
  const slash = rest.indexOf("/");
  // The slug is the whole first segment: `__/` must come before any other `/`.
  if (at <= 0 || slash < at) return undefined;
  const upstream = rest.slice(at + GATEWAY_SEPARATOR.length + 1);
  return upstream === "" ? undefined : { slug: rest.slice(0, at), uri: `${SKILL_URI_ROOT}${upstream}` };
}

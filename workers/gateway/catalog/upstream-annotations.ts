/**
 * An upstream tool's annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, its
 * title) are what the upstream says of its tool, not what mcp-edge vouches for (decision 0049): /mcp
 * serves a source tool with no `annotations` of its own — so clients assume the specification's
 * cautious defaults (not read-only, destructive, not idempotent, open world) — and passes the
 * upstream's claims on under this `_meta` key, labelled as the upstream's.
 */
import type { JsonObject } from "../../lib/json";

export const UPSTREAM_ANNOTATIONS_META_KEY = "mcp-edge/upstream-annotations";

/** The tool's `_meta` entry carrying the upstream's annotations; none when it made no claim. */
export function upstreamAnnotationsMeta(annotations: JsonObject): JsonObject {
  return Object.keys(annotations).length === 0 ? {} : { [UPSTREAM_ANNOTATIONS_META_KEY]: annotations };
}

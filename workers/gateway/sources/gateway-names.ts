/**
 * The gateway's naming rule: a source's tool is `<slug>__<alias>` on /mcp. A slug never contains
 * `__` (sources.schema.ts), so the first separator splits a name unambiguously, and no built-in
 * tool name contains it.
 */
import { GATEWAY_SEPARATOR } from "./sources.schema";

export function gatewayName(slug: string, alias: string): string {
  return `${slug}${GATEWAY_SEPARATOR}${alias}`;
}

/** `<slug>__<alias>` split at the first separator; undefined for a name that is not a source tool's (a built-in). */
export function splitGatewayName(name: string): { slug: string; alias: string } | undefined {
  const at = name.indexOf(GATEWAY_SEPARATOR);
  if (at <= 0) return undefined;
  return { slug: name.slice(0, at), alias: name.slice(at + GATEWAY_SEPARATOR.length) };
}

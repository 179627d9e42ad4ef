/**
 * Where an owner's upstream token may go: only to a URL its resource covers. A token is asked for
 * one protected resource (RFC 8707 `resource`, the MCP authorization spec's canonical resource URI),
 * so it is sent only to that resource's origin and below its path (`resourceCovers`, the port's
 * rule). A change of a source's URL ends its connection (source-registry.service.ts); this is the
 * check beneath it, made where each request leaves (both call paths and the source's Durable
 * Object), so no path that changes a URL can carry a token to a server it was not issued for.
 */
import type { UpstreamConfig } from "../sources/upstream.types";
import { resourceCovers } from "./upstream-authorization";

/**
 * Why `config`'s upstream OAuth token must not be sent to its URL, or undefined when it may (or
 * the config carries none: a source's own static headers are not bound to a resource).
 */
export function bearerRefusal(config: Pick<UpstreamConfig, "slug" | "url" | "bearerResource">): string | undefined {
  if (config.bearerResource === undefined || resourceCovers(config.bearerResource, config.url)) return undefined;
  const { slug, bearerResource, url } = config;
  return `the connection of source ${slug} was made for ${bearerResource}, not for ${url}: connect your account again (nothing was sent)`;
}

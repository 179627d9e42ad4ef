/**
 * A gateway source is never on this Worker's own origin (decision 0057). The built-in servers are
 * already on /mcp under their own names, so a source duplicating them adds nothing, and the gateway
 * reaches every source by a plain fetch: one of its own hostname would fail, or come back into this
 * Worker over the network — its own /mcp included, a loop that multiplies the catalog (decision 0045).
 *
 * The Worker's own origins are SELF_ORIGIN and, when a source is registered or changed, the origin
 * that request arrived on: the latter is this Worker whether or not SELF_ORIGIN names it (unset
 * under `wrangler dev`, or another hostname of the same Worker). A client choosing the Host it sends
 * can only get its own registration refused. The call path and discovery have no such request and
 * check SELF_ORIGIN alone (gateway/upstream-failure.ts#checkUpstreamUrl), so a source stored before
 * this rule answers a typed error instead of being fetched.
 */
import { AppError } from "../../lib/errors";
import { classifyAddress, ipLiteral } from "../../lib/address-kind";

/** An origin parsed, or undefined when unset or not a URL (an unset SELF_ORIGIN, a request without one). */
function parsedOrigin(origin: string | undefined): URL | undefined {
  const value = origin?.trim();
  if (!value) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** A host name without the trailing dots a resolver ignores (`localhost.` is `localhost`). */
const withoutTrailingDots = (host: string) => host.replace(/\.+$/, "");

/** `localhost`, `*.localhost` and every loopback address (127.0.0.0/8, ::1, and IPv6 forms carrying them). */
function isLoopback(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const literal = ipLiteral(host);
  return literal !== undefined && classifyAddress(literal).kind === "loopback";
}

/**
 * Same scheme, port and host, host case and trailing dots aside (the URL parser folds case and the
 * default port); on loopback, any loopback name or address with that scheme and port (on one
 * machine they reach the same listener).
 */
function onOrigin(url: URL, own: URL): boolean {
  if (url.protocol !== own.protocol || url.port !== own.port) return false;
  const [host, ownHost] = [withoutTrailingDots(url.hostname), withoutTrailingDots(own.hostname)];
  return host === ownHost || (isLoopback(host) && isLoopback(ownHost));
}

/** Whether `url` is on one of `ownOrigins` (SELF_ORIGIN, the request's origin; unset or malformed ones name nothing). */
export function isOwnOriginUrl(url: URL, ownOrigins: readonly (string | undefined)[]): boolean {
  return ownOrigins.some((origin) => {
    const own = parsedOrigin(origin);
    return own !== undefined && onOrigin(url, own);
  });
}

/** Why a URL on the Worker's own origin is not a source, in a refusal's words. */
export function ownOriginRefusal(url: URL): string {
  return (
    `${url.origin} is this Worker's own origin: a gateway source cannot be one of its own servers ` +
    "(the built-in servers are already on /mcp under their own names). Register another deployment's URL instead"
  );
}

/** Throws `invalid_input` naming `field` when `url` is on this Worker's own origin (see isOwnOriginUrl). */
export function refuseOwnOrigin(url: URL, ownOrigins: readonly (string | undefined)[], field: string): void {
  if (isOwnOriginUrl(url, ownOrigins)) throw AppError.invalid(`${field} ${ownOriginRefusal(url)}`, field);
}

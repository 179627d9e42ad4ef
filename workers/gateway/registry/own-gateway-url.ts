/**
 * A gateway source cannot be this gateway. A source on `<own origin>/mcp` would list the owner's
 * own gateway tools — its own among them once discovered, so names like `me__me__tasks__add_task`
 * grow — and a call of such a tool would hop gateway → SELF /mcp → gateway once per prefix, each
 * hop marked as already counted (decision 0044): one unit of the budget buying many calls. Nothing
 * useful is served by it, so registration refuses it here, and the SelfCalls entry point refuses
 * the hop itself for rows stored before this rule and for any spelling it misses
 * (http/self-call.ts).
 *
 * The Worker's own origins are SELF_ORIGIN and the origin the registering request arrived on: the
 * latter is this Worker whether or not SELF_ORIGIN names it (unset under `wrangler dev`, where
 * such a source would loop over the network, or another hostname of the same Worker). A client
 * choosing the Host it sends can only get its own registration refused.
 *
 * `/mcp/<server>` on the same origin (tasks, rag, thinking) are real servers and stay allowed.
 */
import { AppError } from "../../lib/errors";

/** The gateway's path on the Worker's own origin (app.ts mounts it at exactly this path). */
const GATEWAY_PATH = "/mcp";

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

/** Every well-formed run of percent escapes decoded; a malformed one is left as it is. */
function percentDecoded(path: string): string {
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * The path as a router might read it, erring towards the gateway: percent escapes decoded (`%2F`
 * too), runs of slashes and a trailing slash dropped, case folded. The URL parser has already
 * resolved `.`/`..` segments (`%2e` included) and turned `\` into `/`.
 */
function looseGatewayPath(pathname: string): boolean {
  const path = percentDecoded(pathname).replace(/\/{2,}/g, "/").replace(/\/+$/, "").toLowerCase();
  return path === GATEWAY_PATH;
}

/** Same scheme, port and host, host case and trailing dots aside (the URL parser folds case and the default port). */
function onOrigin(url: URL, own: URL): boolean {
  return url.protocol === own.protocol && url.port === own.port && withoutTrailingDots(url.hostname) === withoutTrailingDots(own.hostname);
}

/**
 * Whether `url` names this Worker's own gateway endpoint: on one of `ownOrigins` (SELF_ORIGIN, the
 * request's origin; unset or malformed ones name nothing) and the path `/mcp` in any spelling
 * `looseGatewayPath` reads as it. Query and fragment do not matter.
 */
export function isOwnGatewayUrl(url: URL, ownOrigins: readonly (string | undefined)[]): boolean {
  if (!looseGatewayPath(url.pathname)) return false;
  return ownOrigins.some((origin) => {
    const own = parsedOrigin(origin);
    return own !== undefined && onOrigin(url, own);
  });
}

/** Throws `invalid_input` naming `field` when `url` is this Worker's own gateway endpoint (see isOwnGatewayUrl). */
export function refuseOwnGateway(url: URL, ownOrigins: readonly (string | undefined)[], field: string): void {
  if (!isOwnGatewayUrl(url, ownOrigins)) return;
  throw AppError.invalid(
    `${field} ${url.origin}${url.pathname} is this gateway's own endpoint: a gateway source cannot be the gateway itself (its calls would come back here). Register the server you want instead, such as ${url.origin}/mcp/tasks`,
    field,
  );
}

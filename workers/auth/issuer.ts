/**
 * The issuer of this Worker's OAuth for a request — the origin of its authorization server, its
 * protected resources, its sign-in pages and the gateway's client for upstream connections:
 * SELF_ORIGIN when set (production), else the request's own origin (wrangler dev, tests). None for
 * an origin OAuth cannot use: plain http on a host that is not loopback — under wrangler dev that
 * is what a DNS-rebinding Host sends. Every route asks here, and every refusal says it the same way.
 */
import { AppError } from "../lib/errors";

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

export const NO_ISSUER_MESSAGE =
  "OAuth is not available at this origin: use https, or http on localhost / 127.0.0.1 (set SELF_ORIGIN to the public origin)";

/** The issuer for a request to `url`, or undefined where OAuth cannot be served (bearer API tokens still work there). */
export function issuerOf(url: string | URL, env: Pick<Env, "SELF_ORIGIN">): string | undefined {
  const configured = env.SELF_ORIGIN?.trim();
  let origin: URL;
  try {
    origin = new URL(configured ? configured : url);
  } catch {
    return undefined;
  }
  if (origin.protocol === "https:") return origin.origin;
  if (origin.protocol === "http:" && LOOPBACK_HOST.test(origin.hostname)) return origin.origin;
  return undefined;
}

/** The issuer for `request`; `invalid_input` (400) with the one refusal where there is none. */
export function issuer(request: Request, env: Pick<Env, "SELF_ORIGIN">): string {
  const found = issuerOf(request.url, env);
  if (!found) throw new AppError("invalid_input", NO_ISSUER_MESSAGE);
  return found;
}

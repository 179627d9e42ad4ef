/**
 * Our own checks before a Client ID Metadata Document is fetched: where it may be fetched from,
 * and how often one caller may make this server fetch one (decision 0052).
 * On Cloudflare the `global_fetch_strictly_public` flag already keeps the fetch on the public
 * internet; this check also holds where that flag does nothing (wrangler dev, tests) and names
 * the reason: a CIMD client_id must be https and must not be an IP literal of a private,
 * loopback or link-local network, nor a cloud metadata host. It reuses the gateway's URL rules
 * (never allowing private upstreams, whatever ALLOW_PRIVATE_UPSTREAMS says). Special-use names
 * (.test, .example, …) pass: no public DNS server answers them, so they can reach nothing on
 * Cloudflare, and they are what the tests route to a local document server.
 */
import { assertSafeUpstreamUrl } from "../lib/url-safety";
import { AppError } from "../lib/errors";
import { type ClientDocuments, fetchMetadataDocument } from "./client-metadata-fetch";

/**
 * What the CIMD_RATE_LIMITER binding in wrangler.toml allows each caller address (keep the two
 * equal: the binding enforces, this names the limit in the refusal).
 */
export const CIMD_FETCHES_PER_MINUTE = 30;

/** Whether a client_id names a metadata document (a URL) rather than a registered client. */
export function isClientIdUrl(clientId: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(clientId);
}

function refused(reason: string): AppError {
  return AppError.invalid(`This client's metadata document cannot be fetched: ${reason}`, "client_id");
}

/** Throws `invalid_input` naming why the metadata URL may not be fetched. */
export function assertFetchableClientId(clientId: string): void {
  if (!/^https:\/\//i.test(clientId)) throw refused("client_id must be an https URL");
  try {
    assertSafeUpstreamUrl(clientId, false, { allowSpecialUseNames: true });
  } catch (error) {
    if (!(error instanceof AppError)) throw refused("client_id is not a valid URL");
    // The gateway's wording names its own field and setting; say it of the client_id.
    throw refused(error.message.replace(/^url\b/, "client_id").replace(/\s*\([^)]*ALLOW_PRIVATE_UPSTREAMS[^)]*\)/, ""));
  }
}

/**
 * Before a request that names a metadata-document client_id goes to the library: the URL check,
 * then — unless this isolate fetched the document in the last minute — one unit of the caller's
 * fetch budget (keyed by `CF-Connecting-IP`: these requests are unauthenticated) and the fetch
 * itself, whose refusal names what is wrong. The library then reads what was fetched here.
 */
export async function prepareClientMetadata(
  env: Pick<Env, "CIMD_RATE_LIMITER">,
  documents: ClientDocuments,
  request: Request,
  clientId: string,
): Promise<void> {
  assertFetchableClientId(clientId);
  // The library resolves only an https client_id with a path as a document (`https://host` is a
  // registered client's id to it, looked up in KV): only then is there anything to fetch.
  if (!/^https:\/\/[^/?#]*\//i.test(clientId) || documents.get(clientId)) return;
  const caller = request.headers.get("cf-connecting-ip") ?? "unknown";
  const { success } = await env.CIMD_RATE_LIMITER.limit({ key: `cimd:${caller}` });
  if (!success) {
    const limit = `at most ${CIMD_FETCHES_PER_MINUTE} a minute (the CIMD_RATE_LIMITER binding in wrangler.toml)`;
    const message = `Too many client metadata documents fetched for this address: ${limit}; try again in a minute`;
    throw new AppError("rate_limited", message, { details: { retry_after_ms: 60_000 } });
  }
  await fetchMetadataDocument(clientId, documents);
}

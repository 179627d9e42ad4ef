/**
 * Our own SSRF check on a Client ID Metadata Document URL, before the library fetches it.
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

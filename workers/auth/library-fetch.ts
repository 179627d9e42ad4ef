/**
 * The library's own outbound fetches — Client ID Metadata Documents, and the JWKS a `private_key_jwt`
 * document names — held to our rules (decision 0052). The library calls the global `fetch` with its
 * defaults (redirects followed, any content type) and has no option or hook to change that; a
 * redirect from a public document to a loopback or private address would be followed by any of its
 * lookups, whichever route caused it. So the global `fetch` is wrapped once, and only requests that
 * carry the library's User-Agent are treated differently:
 * - a document `client-metadata-fetch.ts` fetched in the last minute is answered from the isolate's
 *   memory of them — the routes fetch first, under the stricter rules and the rate limit, so the
 *   library does not fetch again;
 * - anything else is fetched with `redirect: "manual"` (a redirect is refused), from a public https
 *   address only, and refused unless its content type is JSON. The library applies its own size caps.
 * Every other fetch of the Worker passes through untouched.
 */
import { AppError } from "../lib/errors";
import { assertFetchableClientId } from "./client-id-guard";
import { type ClientDocuments, mediaTypeOf, redirectRefused } from "./client-metadata-fetch";

/** What the library sends as User-Agent on each of its outbound fetches (`workers-oauth-provider/<version> (+…)`). */
const LIBRARY_USER_AGENT = /^workers-oauth-provider\//;
/** JWKS are served as either (RFC 7517 §8.5 registers the second). */
const JSON_TYPES = new Set(["application/json", "application/jwk-set+json"]);
/** Marks the global scope once wrapped: a second module instance (tests load several) must not wrap twice. */
const WRAPPED = Symbol.for("mcp-edge.library-fetch-guard");

function urlOf(input: RequestInfo | URL): string {
  if (typeof input === "string") return input;
  return input instanceof URL ? input.href : input.url;
}

function isLibraryFetch(input: RequestInfo | URL, init: RequestInit | undefined): boolean {
  const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
  return LIBRARY_USER_AGENT.test(headers.get("user-agent") ?? "");
}

async function libraryFetch(
  networkFetch: typeof fetch,
  documents: ClientDocuments,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): Promise<Response> {
  const url = urlOf(input);
  const known = documents.get(url);
  if (known) {
    const headers = new Headers({ "Content-Type": known.contentType });
    if (known.cacheControl !== null) headers.set("Cache-Control", known.cacheControl);
    return new Response(known.body.slice(), { status: 200, headers });
  }
  assertFetchableClientId(url);
  const response = await networkFetch(input, { ...init, redirect: "manual" });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw redirectRefused(url, response.status);
  }
  const type = mediaTypeOf(response.headers.get("content-type"));
  if (response.ok && !JSON_TYPES.has(type ?? "")) {
    await response.body?.cancel();
    throw AppError.invalid(`The document at ${url} is served as ${type ?? "no content type"}, not application/json`);
  }
  return response;
}

/**
 * Wraps the global fetch (once per isolate) so the library's fetches follow the rules above, reading
 * `documents` — the isolate's, handed over by the first authorization server it builds.
 */
export function guardLibraryFetches(documents: ClientDocuments): void {
  if (Reflect.get(globalThis, WRAPPED) === true) return;
  const networkFetch: typeof fetch = globalThis.fetch.bind(globalThis);
  const guarded: typeof fetch = (input, init) =>
    isLibraryFetch(input, init) ? libraryFetch(networkFetch, documents, input, init) : networkFetch(input, init);
  Object.defineProperty(globalThis, "fetch", { value: guarded, writable: true, configurable: true });
  Reflect.set(globalThis, WRAPPED, true);
}

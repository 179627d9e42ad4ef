/**
 * Fetching a Client ID Metadata Document as the CIMD draft asks (decision 0052): at its URL only —
 * a redirect is refused, never followed, so a public document cannot send this server to a loopback
 * or private address — served as `application/json`, at most 5 KiB, within 10 s. What passed is
 * remembered in the isolate for a minute (`ClientDocuments`, in workers/isolate-state.ts), so the
 * library's several lookups during one authorization (request, consent, code, exchange) read it
 * instead of fetching again (library-fetch.ts).
 * Whether the document means anything (its client_id, redirect URIs, no secrets) is the library's
 * check, on the bytes fetched here.
 */
import { BoundedCache } from "../lib/bounded-cache";
import { AppError } from "../lib/errors";

/** The library's own cap on a document, so nothing it would refuse for size is fetched here. */
export const CIMD_MAX_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 10_000;
const REMEMBER_MS = 60_000;
/** Each entry is at most 5 KiB: the memory an isolate gives this is bounded at 500 KiB. */
const MAX_REMEMBERED = 100;
const USER_AGENT = "mcp-edge-authorization-server (Client ID Metadata Document fetch)";

export interface FetchedDocument {
  body: Uint8Array;
  contentType: string;
  /** The origin's caching advice, handed on to the library (which may cache the document by it). */
  cacheControl: string | null;
}

/** The documents this isolate fetched in the last minute, by URL. */
export type ClientDocuments = BoundedCache<string, FetchedDocument>;

export function clientDocuments(): ClientDocuments {
  return new BoundedCache({ maxEntries: MAX_REMEMBERED, ttlMs: REMEMBER_MS });
}

/** `text/html; charset=utf-8` → `text/html`; undefined without a Content-Type. */
export function mediaTypeOf(contentType: string | null): string | undefined {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

function refused(url: string, reason: string): AppError {
  return AppError.invalid(`This app could not be verified: its client metadata document ${url} ${reason}`, "client_id");
}

/** A redirect's refusal, for this fetch and the library's (library-fetch.ts). */
export function redirectRefused(url: string, status: number): AppError {
  const rule = "a metadata document must be served at its client_id URL itself, and redirects are not followed";
  return refused(url, `answered with a redirect (HTTP ${status}): ${rule}`);
}

async function readCapped(response: Response, url: string): Promise<Uint8Array> {
  if (Number(response.headers.get("content-length") ?? "0") > CIMD_MAX_BYTES) {
    await response.body?.cancel();
    throw refused(url, `is larger than ${CIMD_MAX_BYTES / 1024} KiB`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let next = await reader?.read(); next && !next.done; next = await reader?.read()) {
    size += next.value.byteLength;
    if (size > CIMD_MAX_BYTES) {
      await reader?.cancel();
      throw refused(url, `is larger than ${CIMD_MAX_BYTES / 1024} KiB`);
    }
    chunks.push(next.value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * Fetches the document at `url` (already checked by `assertFetchableClientId`) and remembers it in
 * `documents`; throws `invalid_input` naming what is wrong: a redirect, an error status, another
 * content type, the size, or no answer in time.
 */
export async function fetchMetadataDocument(url: string, documents: ClientDocuments): Promise<FetchedDocument> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Accept: "application/json", "User-Agent": USER_AGENT },
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    throw refused(url, timedOut ? `did not answer within ${FETCH_TIMEOUT_MS / 1000} s` : "could not be fetched");
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw redirectRefused(url, response.status);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw refused(url, `answered HTTP ${response.status}`);
  }
  const contentType = mediaTypeOf(response.headers.get("content-type"));
  if (contentType !== "application/json") {
    await response.body?.cancel();
    throw refused(url, `is served as ${contentType ?? "no content type"}, not application/json`);
  }
  const body = await readCapped(response, url).catch((error: unknown) => {
    throw error instanceof AppError ? error : refused(url, "could not be read completely");
  });
  const document: FetchedDocument = {
    body,
    contentType: response.headers.get("content-type") ?? "application/json",
    cacheControl: response.headers.get("cache-control"),
  };
  documents.set(url, document);
  return document;
}

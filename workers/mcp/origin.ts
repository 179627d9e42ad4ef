/**
 * DNS-rebinding protection for every MCP endpoint: a browser Origin must be localhost-class, the
 * Worker's own *.workers.dev hostname (the console), or listed in ALLOWED_ORIGINS. Requests without
 * an Origin (non-browser MCP clients) pass. On a localhost endpoint a Host header, when sent, must be
 * localhost too.
 */
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";

/**
 * workerd builds request.url from the client's Host header. On Cloudflare the edge only routes our
 * own hostnames here, but a local `wrangler dev` accepts any Host, so a DNS-rebinding page served
 * from evil.example:8787 would look like "the Worker's own hostname". Only *.workers.dev names can
 * be trusted from the URL alone: their DNS is Cloudflare's and can never point at a local server.
 * Custom domains (and consoles on them) belong in ALLOWED_ORIGINS.
 */
function ownHostnames(requestUrl: URL): string[] {
  return requestUrl.hostname.endsWith(".workers.dev") ? [requestUrl.hostname] : [];
}

export function allowedOriginHostnames(requestUrl: URL, configured: string | undefined): string[] {
  const extra = (configured ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => (entry.includes("://") ? new URL(entry).hostname : entry));
  return [...localhostAllowedOrigins(), ...ownHostnames(requestUrl), ...extra];
}

/**
 * The SDK's list, made once: it builds a new array on every call, and every MCP request checks it.
 * Only read here and by hostHeaderValidationResponse (an `includes`), never changed.
 */
const LOCALHOST_HOSTNAMES = localhostAllowedHostnames();

/** A 403 response for a rejected Origin or Host, or undefined when the request may proceed. */
export function rejectForeignOrigin(request: Request, configured: string | undefined): Response | undefined {
  const url = new URL(request.url);
  // In-process calls (service bindings, tests) carry no Host header: the URL is authoritative.
  if (request.headers.has("host") && LOCALHOST_HOSTNAMES.includes(url.hostname)) {
    const hostRejection = hostHeaderValidationResponse(request, LOCALHOST_HOSTNAMES);
    if (hostRejection) return hostRejection;
  }
  // Without an Origin (non-browser clients) the SDK's check passes whatever the list holds, so the
  // list is built only for a browser's request.
  if (!request.headers.get("origin")) return undefined;
  return originValidationResponse(request, allowedOriginHostnames(url, configured));
}

/**
 * Which upstream URLs the gateway may call. Always refused: link-local (169.254.0.0/16,
 * fe80::/10) and cloud-metadata hosts — the classic SSRF targets. Refused unless
 * ALLOW_PRIVATE_UPSTREAMS is set (local dev, tests): plain http, loopback and private addresses.
 *
 * The WHATWG URL parser already normalises IPv4 spellings (`http://2130706433/`, `0x7f.1`) to
 * dotted quads and IPv6 to compressed form, so literal checks here see one canonical spelling.
 * Host names are not resolved (Workers have no DNS API); see docs/decisions/0008.
 */
import { AppError } from "../lib/errors";

const METADATA_HOSTS = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.com",
  "instance-data",
  "instance-data.ec2.internal",
  "100.100.100.200", // Alibaba Cloud
  "[fd00:ec2::254]", // AWS IMDS over IPv6
]);

export function privateUpstreamsAllowed(env: { ALLOW_PRIVATE_UPSTREAMS?: string | undefined }): boolean {
  const value = (env.ALLOW_PRIVATE_UPSTREAMS ?? "").trim().toLowerCase();
  return value === "1" || value === "true";
}

function ipv4(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  const octets = parts.map(Number);
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/** The IPv4 address embedded in an IPv4-mapped IPv6 literal (`[::ffff:7f00:1]`). */
function mappedIpv4(host: string): number[] | undefined {
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
  if (!match) return undefined;
  const high = parseInt(match[1]!, 16);
  const low = parseInt(match[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255];
}

type Class = "link_local" | "loopback" | "private" | "public";

function classifyIpv4([a, b]: number[]): Class {
  if (a === undefined || b === undefined) return "public";
  if (a === 169 && b === 254) return "link_local";
  if (a === 127 || a === 0) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) {
    return "private";
  }
  return "public";
}

function classify(host: string): Class {
  const v4 = ipv4(host) ?? mappedIpv4(host);
  if (v4) return classifyIpv4(v4);
  if (host.startsWith("[")) {
    if (/^\[fe[89ab][0-9a-f]?:/.test(host)) return "link_local";
    if (host === "[::1]" || host === "[::]") return "loopback";
    if (/^\[f[cd][0-9a-f]{0,2}:/.test(host)) return "private";
    return "public";
  }
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host.endsWith(".local") || host.endsWith(".internal") || !host.includes(".")) return "private";
  return "public";
}

/** Throws `invalid_input` naming why the URL is refused; returns the parsed URL otherwise. */
export function assertSafeUpstreamUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw AppError.invalid("url is not a valid URL", "url");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw AppError.invalid("url must be http(s)", "url");
  if (url.username || url.password) throw AppError.invalid("url must not carry credentials; use mcp_env_vars", "url");
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (METADATA_HOSTS.has(host)) throw AppError.invalid(`url host ${host} is a cloud metadata service`, "url");
  const kind = classify(host);
  if (kind === "link_local") throw AppError.invalid(`url host ${host} is link-local`, "url");
  if (!allowPrivate) {
    if (url.protocol === "http:") throw AppError.invalid("url must use https (plain http needs ALLOW_PRIVATE_UPSTREAMS)", "url");
    if (kind !== "public") {
      throw AppError.invalid(`url host ${host} is a ${kind} address (allowed only with ALLOW_PRIVATE_UPSTREAMS)`, "url");
    }
  }
  return url;
}

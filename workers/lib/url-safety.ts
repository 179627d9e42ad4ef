/**
 * Which upstream URLs the gateway may call. Always refused: link-local addresses and cloud-metadata
 * hosts — the classic SSRF targets — however they are spelt. Refused unless ALLOW_PRIVATE_UPSTREAMS
 * is set (local dev, tests): plain http, loopback, private and every other special-purpose address
 * or special-use name. IP addresses are classified in address-kind.ts.
 *
 * The WHATWG URL parser already reads IPv4 in decimal, octal, hex and short forms (`2130706433`,
 * `0x7f.1`, `127.1.`) as dotted quads, percent-decodes and lower-cases names, and compresses IPv6;
 * what it leaves — trailing dots (`localhost..`) — is normalised here before any rule applies.
 * Host names are not resolved (Workers have no DNS API): a public name that resolves to a private
 * address is not caught here (docs/security.md, Upstream URL safety).
 */
import { AppError } from "./errors";
import { type AddressKind, classifyAddress, ipLiteral } from "./address-kind";

const METADATA_NAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.com",
  "metadata.tencentyun.com",
  "instance-data",
  "instance-data.ec2.internal",
]);
const LOOPBACK_NAMES = new Set(["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"]);
/** Suffixes of names that only resolve on a local network (RFC 6762 .local, .internal, home.arpa, …). */
const PRIVATE_SUFFIXES = [".local", ".internal", ".localdomain", ".home.arpa", ".lan", ".intranet", ".corp"];
/** Special-use domain names no public server answers under (RFC 6761, RFC 7686, RFC 9476). */
const SPECIAL_USE_SUFFIXES = [".test", ".invalid", ".example", ".onion", ".alt"];

export function privateUpstreamsAllowed(env: { ALLOW_PRIVATE_UPSTREAMS?: string | undefined }): boolean {
  const value = (env.ALLOW_PRIVATE_UPSTREAMS ?? "").trim().toLowerCase();
  return value === "1" || value === "true";
}

const KIND_WORDS: Record<Exclude<AddressKind, "public" | "metadata" | "link_local">, string> = {
  loopback: "a loopback",
  private: "a private",
  special: "a special-purpose",
};

function nameKind(name: string): { kind: Exclude<AddressKind, "link_local">; why: string } {
  const has = (suffixes: readonly string[]) => suffixes.some((suffix) => name.endsWith(suffix) || name === suffix.slice(1));
  if (METADATA_NAMES.has(name)) return { kind: "metadata", why: "" };
  if (LOOPBACK_NAMES.has(name) || name.endsWith(".localhost")) return { kind: "loopback", why: "a loopback name" };
  if (!name.includes(".")) return { kind: "private", why: "a private name (a single label resolves on the local network only)" };
  if (has(PRIVATE_SUFFIXES)) return { kind: "private", why: "a private name (it resolves on a local network only)" };
  if (has(SPECIAL_USE_SUFFIXES)) return { kind: "special", why: "a special-use name" };
  return { kind: "public", why: "" };
}

const DEV_ONLY = "allowed only with ALLOW_PRIVATE_UPSTREAMS";

/**
 * What a caller may relax beyond `allowPrivate`. `allowSpecialUseNames`: names under .test,
 * .example, .invalid, … (RFC 6761) resolve on no public DNS server, so on Cloudflare a fetch of
 * one reaches nothing; locally they are no riskier than any public name (neither is resolved here).
 */
export interface UrlRuleOptions {
  allowSpecialUseNames?: boolean;
}

/** Refuses `host` (a URL hostname) when it is not allowed; the messages name why. */
function checkHost(host: string, allowPrivate: boolean, options: UrlRuleOptions): void {
  const literal = ipLiteral(host);
  if (literal === undefined) {
    const name = host.replace(/\.+$/, "");
    if (name === "" || name.split(".").includes("")) throw AppError.invalid(`url host ${host} is not a valid host name`, "url");
    const { kind, why } = nameKind(name);
    if (kind === "metadata") throw AppError.invalid(`url host ${host} is a cloud metadata service`, "url");
    if (kind === "special" && options.allowSpecialUseNames) return;
    if (kind !== "public" && !allowPrivate) throw AppError.invalid(`url host ${host} is ${why}; ${DEV_ONLY}`, "url");
    return;
  }
  const verdict = classifyAddress(literal);
  const subject = verdict.via === undefined ? `url host ${host} is` : `url host ${host} embeds ${verdict.via}, which is`;
  if (verdict.kind === "metadata") throw AppError.invalid(`${subject} a cloud metadata service (${verdict.range})`, "url");
  if (verdict.kind === "link_local") throw AppError.invalid(`${subject} link-local (${verdict.range})`, "url");
  if (verdict.kind !== "public" && !allowPrivate) {
    throw AppError.invalid(`${subject} ${KIND_WORDS[verdict.kind]} address (${verdict.range}); ${DEV_ONLY}`, "url");
  }
}

/** Throws `invalid_input` naming why the URL is refused; returns the parsed URL otherwise. */
export function assertSafeUpstreamUrl(raw: string, allowPrivate: boolean, options: UrlRuleOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw AppError.invalid("url is not a valid URL", "url");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw AppError.invalid("url must be http(s)", "url");
  if (url.username || url.password) throw AppError.invalid("url must not carry credentials; use mcp_env_vars", "url");
  checkHost(url.hostname.toLowerCase(), allowPrivate, options);
  if (!allowPrivate && url.protocol === "http:") throw AppError.invalid(`url must use https (plain http is ${DEV_ONLY})`, "url");
  return url;
}

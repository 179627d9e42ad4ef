/**
 * Which private-use redirect URIs a native app may use (decision 0053, amending 0032). The library
 * checks https and loopback http, and with `allowPrivateUseRedirectUris` accepts any other scheme
 * it does not know to be dangerous — including a web browser's own handler schemes:
 * `microsoft-edge:https://evil.example/cb` opens that web page in Edge, so the code would go to a
 * web site while the consent page said "an app on this computer". RFC 8252 §7.1 asks native apps for
 * a scheme named after a domain their publisher controls, in reverse order (`com.example.app:/cb`):
 * that is the rule here, with the browsers' schemes named in the refusal, and Cursor's `cursor:` —
 * the one single-label scheme of a native MCP client decision 0032 was made for — kept.
 */

/** Schemes that hand what follows to a web browser (desktop and mobile), never to an app of their own. */
const BROWSER_SCHEMES = new Set([
  "microsoft-edge",
  "microsoft-edge-holographic",
  "googlechrome",
  "googlechromes",
  "firefox",
  "firefox-private",
  "opera",
  "opera-http",
  "opera-https",
  "brave",
  "vivaldi",
  "safari",
  "x-safari-http",
  "x-safari-https",
  "x-web-search",
  "duckduckgo",
  "intent",
  "android-app",
]);
/** Single-label schemes of native MCP clients, accepted by name (decision 0053). */
const KNOWN_APP_SCHEMES = new Set(["cursor"]);
/** Two labels at least, each a DNS label: `com.example.app`. */
const REVERSE_DOMAIN = /^[a-z][a-z0-9-]*(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

export const REDIRECT_URI_RULE =
  "a redirect URI must be https, http on a loopback address, or a native app's private-use scheme named after a domain " +
  "its publisher controls, in reverse order (RFC 8252 §7.1: com.example.app:/callback)";

/** Why `uri` may not receive a code, or undefined when it may (https and http are the library's to judge). */
export function redirectUriProblem(uri: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri.trim())?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === "https" || scheme === "http") return undefined;
  if (BROWSER_SCHEMES.has(scheme)) {
    const why = `${scheme}: is a web browser's scheme, which opens what follows as a web page, not an app`;
    return `The redirect URI ${uri} is refused: ${why}; ${REDIRECT_URI_RULE}`;
  }
  if (KNOWN_APP_SCHEMES.has(scheme) || REVERSE_DOMAIN.test(scheme)) return undefined;
  return `The redirect URI ${uri} is refused: ${scheme}: is not named after a domain in reverse order; ${REDIRECT_URI_RULE}`;
}

/** The first problem among a registration's redirect URIs (the library has checked they are a list of strings). */
export function registrationRedirectProblem(redirectUris: unknown): string | undefined {
  if (!Array.isArray(redirectUris)) return undefined;
  for (const uri of redirectUris) {
    const problem = typeof uri === "string" ? redirectUriProblem(uri) : undefined;
    if (problem) return problem;
  }
  return undefined;
}

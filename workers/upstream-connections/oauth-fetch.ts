/**
 * The fetch every OAuth exchange with an upstream's servers goes through (Protected Resource
 * Metadata, authorization server metadata, registration, token, revocation). Their URLs come from
 * documents the upstream serves, so each is held to the same rules as a source's own URL (no
 * private or loopback hosts unless ALLOW_PRIVATE_UPSTREAMS, https only) before any request, and
 * redirects are not followed: a redirect could otherwise lead the Worker to a host those rules
 * refuse.
 */
import { AppError } from "../lib/errors";
import { assertSafeUpstreamUrl } from "../lib/url-safety";

export type OAuthFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Refused before sending: what the SDK's discovery reports as a failed fetch, with our reason. */
export class OAuthUrlRefused extends TypeError {
  override readonly name = "OAuthUrlRefused";
}

export function oauthFetch(base: OAuthFetch, allowPrivateUpstreams: boolean): OAuthFetch {
  return async function upstreamOAuthRequest(input, init) {
    const request = new Request(input, init);
    try {
      assertSafeUpstreamUrl(request.url, allowPrivateUpstreams);
    } catch (error) {
      throw new OAuthUrlRefused(
        `OAuth endpoint ${new URL(request.url).origin} refused: ${error instanceof AppError ? error.message : "not allowed"}`,
      );
    }
    return base(new Request(request, { redirect: "manual" }));
  };
}

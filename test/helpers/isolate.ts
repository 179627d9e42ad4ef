/**
 * The tests' hold on what the Worker's isolate remembers between requests (workers/isolate-state.ts):
 * the Worker under test runs in the tests' own isolate, so this is its memory.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { isolateState } from "../../workers/isolate-state";

/** Forgets every verified bearer token: the next request's token is checked again (as after TOKEN_CACHE_SECONDS). */
export function clearTokenCache(): void {
  isolateState.verifiedTokens.clear();
}

/** The OAuth library's helpers of the Worker's own authorization server at `issuer`. */
export function oauthHelpers(issuer: string, env: Env): OAuthHelpers {
  return isolateState.authorizationServers.helpers(issuer, env);
}

/**
 * What every way through /authorize ends with: the scopes a user may be offered, the key consent
 * is remembered under, and the grant (the code sent back to the client). Shared by the sign-in and
 * consent pages and by the OpenID Connect callback, so all of them grant by the same rules.
 */
import { type AuthRequest, AuthorizationError, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { GrantProps } from "../authorization-server";
import { issueCode } from "../grant-replacement";
import type { AuthUser } from "../principal";
import { RESOURCE_PATHS, type ResourcePath, resourceUrl } from "../resources";
import type { Scope } from "../scopes";
import { unservedScopes } from "./scope-offer";
import type { ConsentKey } from "./sign-in.repo";

/**
 * The library's parse of an authorization request, plus PKCE for every client: the library asks it
 * of public clients only, OAuth 2.1 and MCP of all (a confidential client's code is then bound to
 * the instance that started the flow too). The library already refuses `plain`; a request without a
 * challenge goes back to the client as `invalid_request`, as the library answers a public client.
 * A request whose scopes its resource serves none of goes back as `invalid_scope` (scope-offer.ts).
 */
export async function parseAuthorization(oauth: OAuthHelpers, request: Request, issuer: string): Promise<AuthRequest> {
  const parsed = await oauth.parseAuthRequest(request);
  const back = { redirectUri: parsed.redirectUri, state: parsed.state, ...(parsed.issuer === undefined ? {} : { issuer: parsed.issuer }) };
  if (!parsed.codeChallenge) {
    const description = "PKCE is required of every client: send code_challenge with code_challenge_method=S256";
    throw new AuthorizationError("invalid_request", { description, ...back });
  }
  const unserved = unservedScopes(pathOfResource(issuer, parsed.resource), parsed);
  if (unserved) throw new AuthorizationError("invalid_scope", { description: unserved, ...back });
  return parsed;
}

export function pathOfResource(issuer: string, resource: string | undefined): ResourcePath {
  return RESOURCE_PATHS.find((path) => resourceUrl(issuer, path) === resource) ?? "";
}

export function consentKey(issuer: string, request: AuthRequest, userId: number): ConsentKey {
  return { userId, clientId: request.clientId, redirectUri: request.redirectUri, resource: request.resource ?? issuer };
}

/**
 * Issues the code for `user` with `scopes` and redirects the browser to the client with it. The
 * client's earlier grant for this resource keeps working until this code is exchanged
 * (grant-replacement.ts).
 */
export async function completeFor(
  oauth: OAuthHelpers,
  kv: KVNamespace,
  issuer: string,
  grant: { request: AuthRequest; user: AuthUser; scopes: Scope[] },
  headers = new Headers(),
): Promise<Response> {
  const { request, user, scopes } = grant;
  const props: GrantProps = { userId: user.id };
  const resource = resourceUrl(issuer, pathOfResource(issuer, request.resource));
  const options = { request: { ...request, scope: scopes }, userId: String(user.id), metadata: {}, scope: scopes, props };
  const { redirectTo } = await issueCode(oauth, kv, options, resource);
  headers.set("Location", redirectTo);
  headers.set("Cache-Control", "no-store");
  return new Response(null, { status: 302, headers });
}

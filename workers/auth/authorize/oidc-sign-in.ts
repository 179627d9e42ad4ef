/**
 * Sign-in with an external OpenID Connect provider, as the library's upstream sign-in guidance
 * asks: **consent before the redirect** — choosing the provider on the sign-in page shows this
 * server's consent page first (client, redirect host, scopes), and only its Allow sends the browser
 * to the provider — and a `state` bound to the browser (the library's `beginUpstream`: single use,
 * ten minutes, a `__Host-` binding cookie, the request and our PKCE verifier and nonce kept
 * encrypted server-side). So a provider that signs its users in silently can never hand a code to
 * a client the user did not approve here, and a callback replayed in another browser is refused.
 * The callback (oidc-callback.routes.ts) maps the provider's (issuer, subject) to a local user.
 * Signing in to come back to one of this Worker's own pages (a connect link) asks no consent here:
 * no app is waiting for a code (oidc-return-sign-in.ts).
 */
import { type ApprovedConsent, type AuthorizationErrorCode, authorizationErrorRedirect } from "@cloudflare/workers-oauth-provider";
import { AppError } from "../../lib/errors";
import { newSignInSecrets, OidcFailure, type OidcFailureKind } from "../oidc/oidc-client";
import { oidcDisplayName } from "../oidc/oidc-settings";
import { AUTHORIZE_PATH, OIDC_CALLBACK_PATH } from "../paths";
import { resourceFacts } from "../resources";
import type { Scope } from "../scopes";
import type { SignInService } from "../sign-in.service";
import { clientFacts } from "./client-facts";
import { parseAuthorization, pathOfResource } from "./grant";
import { offeredScopes } from "./scope-offer";
import { escapeHtml } from "./html";
import { beginReturnSignIn } from "./oidc-return-sign-in";
import { consentPage, errorPage } from "./pages";
import type { SignInMethod } from "./sign-in-methods";

export const OIDC_METHOD_ID = "oidc";

/** A provider that cannot be reached is named on the sign-in page, as the operator's problem, not the user's. */
function reachable<T>(step: Promise<T>): Promise<T> {
  return step.catch((error: unknown) => {
    throw error instanceof OidcFailure ? new AppError("unavailable", `${error.message}. Try again later, or sign in another way.`) : error;
  });
}

/** The sign-in method for this Worker's provider (offered when OIDC_ISSUER is set). */
export function oidcSignInMethod(env: Env): SignInMethod {
  const name = oidcDisplayName(env);
  return {
    id: OIDC_METHOD_ID,
    title: `Sign in with ${name}`,
    button: `Continue with ${name}`,
    fields: () =>
      `<p class="help">You sign in at ${escapeHtml(name)}. When an app asks for access, you first see here what it asks for.</p>`,
    async submit(_form, { signIn, env: bindings, issuer, returnTo }) {
      const provider = signIn.openIdProvider();
      if (!returnTo.startsWith(`${AUTHORIZE_PATH}?`)) {
        return { response: await reachable(beginReturnSignIn(bindings, provider, `${issuer}${OIDC_CALLBACK_PATH}`, returnTo)) };
      }
      const oauth = signIn.oauth(issuer);
      const request = await parseAuthorization(oauth, new Request(new URL(returnTo, issuer)), issuer);
      // The provider is asked for its endpoints now, so one that is down is named on the sign-in page.
      const origin = await reachable(provider.origin());
      const client = await clientFacts(oauth, issuer, bindings, request);
      const consent = await oauth.beginConsent(request);
      const response = consentPage(
        {
          ...client,
          resource: request.resource ?? issuer,
          resourceName: resourceFacts(pathOfResource(issuer, request.resource)).name,
          userName: undefined,
          scopes: offeredScopes(pathOfResource(issuer, request.resource), request, null),
          handle: consent.handle,
          signInWith: { method: OIDC_METHOD_ID, name: provider.settings.displayName, origin },
        },
        consent.headers,
      );
      return { response };
    },
  };
}

export const FAILURE_STATUS: Record<OidcFailureKind, number> = { unreachable: 503, refused: 403, invalid_response: 502 };
const CLIENT_ERROR: Record<OidcFailureKind, AuthorizationErrorCode> = {
  unreachable: "temporarily_unavailable",
  refused: "access_denied",
  invalid_response: "server_error",
};

/**
 * The page for a sign-in the provider did not complete, once the client is known: what went wrong,
 * and a link back to the app carrying the OAuth error (with its `state` and `iss`).
 */
export function providerFailurePage(failure: OidcFailure, request: ApprovedConsent["request"], headers?: Headers): Response {
  const back = authorizationErrorRedirect(request, CLIENT_ERROR[failure.kind], failure.message);
  return withCookies(errorPage(failure.message, FAILURE_STATUS[failure.kind], back), headers);
}

/** `response` with the cookies `headers` sets (a binding cookie to clear) added. */
export function withCookies(response: Response, headers: Headers | undefined): Response {
  for (const cookie of headers?.getSetCookie() ?? []) response.headers.append("Set-Cookie", cookie);
  return response;
}

/** After Allow on the consent page: keep the approved request and send the browser to the provider. */
export async function continueAtProvider(
  signIn: SignInService,
  issuer: string,
  approved: ApprovedConsent,
  scopes: Scope[],
): Promise<Response> {
  const provider = signIn.openIdProvider();
  const secrets = newSignInSecrets();
  const request = { ...approved.request, scope: scopes };
  const { state, headers } = await signIn.oauth(issuer).beginUpstream(request, { data: secrets, headers: approved.headers });
  try {
    const url = await provider.authorizationUrl({ redirectUri: `${issuer}${OIDC_CALLBACK_PATH}`, state, secrets });
    headers.set("Location", url.href);
    headers.set("Cache-Control", "no-store");
    return new Response(null, { status: 303, headers });
  } catch (error) {
    if (error instanceof OidcFailure) return providerFailurePage(error, request, headers);
    throw error;
  }
}

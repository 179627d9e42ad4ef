/**
 * GET /authorize/oidc/callback: where the OpenID provider sends the browser back. The library's
 * `finishUpstream` recovers the approved authorization request and our PKCE verifier and nonce
 * (refused unless this browser holds the `state`'s binding cookie, and only once); the code is
 * redeemed and the ID Token validated (oidc-client.ts); the provider's (issuer, subject) becomes a
 * local user — created at the first sign-in — who gets a sign-in session, remembered consent for
 * what they approved before the redirect, and the code for the client. A sign-in made to come back
 * to one of our own pages (oidc-return-sign-in.ts) gets the session and returns there.
 */
import type { Context } from "hono";
import * as z from "zod";
import { AppError } from "../../lib/errors";
import { log } from "../../lib/log";
import { issuer } from "../issuer";
import { OidcFailure, type SignInSecrets } from "../oidc/oidc-client";
import { OIDC_CALLBACK_PATH } from "../paths";
import type { AuthUser } from "../principal";
import { normalizeScopes } from "../scopes";
import type { SignInService } from "../sign-in.service";
import { guarded, type SignInEnv } from "./authorize.routes";
import { finishReturnSignIn, type ResumedReturn } from "./oidc-return-sign-in";
import { FAILURE_STATUS, OIDC_METHOD_ID, providerFailurePage, withCookies } from "./oidc-sign-in";
import { errorPage } from "./pages";

/** What `continueAtProvider` saved with the request (decrypted by the library; checked anyway). */
const SavedSecrets = z.object({ verifier: z.string().min(43), nonce: z.string().min(1) });

/** The local user of the provider's (issuer, subject) the callback names, created at the first sign-in. */
async function localUser(signIn: SignInService, callback: URL, redirectUri: string, secrets: SignInSecrets): Promise<AuthUser> {
  const state = callback.searchParams.get("state") ?? "";
  const identity = await signIn.openIdProvider().redeem(callback, { state, redirectUri, secrets });
  return signIn.userForIdentity(identity);
}

function failed(error: unknown): OidcFailure {
  if (!(error instanceof OidcFailure)) throw error;
  log.warn("oidc sign-in failed", { kind: error.kind, reason: error.message });
  return error;
}

/** A sign-in made to come back to one of our own pages: the session, then back there. */
async function signInAndReturn(signIn: SignInService, callback: URL, redirectUri: string, returning: ResumedReturn): Promise<Response> {
  let user: AuthUser;
  try {
    user = await localUser(signIn, callback, redirectUri, returning.secrets);
  } catch (error) {
    const failure = failed(error);
    return withCookies(errorPage(failure.message, FAILURE_STATUS[failure.kind]), returning.headers);
  }
  returning.headers.append("Set-Cookie", await signIn.startSession(user, OIDC_METHOD_ID, null));
  returning.headers.set("Location", returning.returnTo);
  return new Response(null, { status: 303, headers: returning.headers });
}

/** An app's sign-in, approved here before the redirect: the session, the remembered consent, the code. */
async function signInAndGrant(signIn: SignInService, request: Request, at: string, redirectUri: string): Promise<Response> {
  const resumed = await signIn.oauth(at).finishUpstream(request);
  const secrets = SavedSecrets.safeParse(resumed.data);
  if (!secrets.success) throw new AppError("invalid_input", "This sign-in has no saved state; start again from the app");
  let user: AuthUser;
  try {
    user = await localUser(signIn, new URL(request.url), redirectUri, secrets.data);
  } catch (error) {
    return providerFailurePage(failed(error), resumed.request, resumed.headers);
  }
  const scopes = normalizeScopes(resumed.request.scope);
  await signIn.rememberConsent(at, resumed.request, user.id, scopes);
  resumed.headers.append("Set-Cookie", await signIn.startSession(user, OIDC_METHOD_ID, null));
  return signIn.complete(at, { request: resumed.request, user, scopes }, resumed.headers);
}

/** GET /authorize/oidc/callback. */
export const oidcCallback = guarded(async (c: Context<SignInEnv>) => {
  const at = issuer(c.req.raw, c.env);
  const redirectUri = `${at}${OIDC_CALLBACK_PATH}`;
  const signIn = c.var.services.signIn;
  const returning = await finishReturnSignIn(c.env, c.req.raw);
  if (returning) return signInAndReturn(signIn, new URL(c.req.url), redirectUri, returning);
  return signInAndGrant(signIn, c.req.raw, at, redirectUri);
});

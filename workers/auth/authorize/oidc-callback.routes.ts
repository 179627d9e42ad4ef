/**
 * GET /authorize/oidc/callback: where the OpenID provider sends the browser back. The library's
 * `finishUpstream` recovers the approved authorization request and our PKCE verifier and nonce
 * (refused unless this browser holds the `state`'s binding cookie, and only once); the code is
 * redeemed and the ID Token validated (oidc-client.ts); the provider's (issuer, subject) becomes a
 * local user — created at the first sign-in — who gets a sign-in session, remembered consent for
 * what they approved before the redirect, and the code for the client. A sign-in made to come back
 * to one of our own pages (oidc-return-sign-in.ts) gets the session and returns there.
 */
import { Hono } from "hono";
import * as z from "zod";
import { type Db, openDb } from "../../lib/db";
import { AppError } from "../../lib/errors";
import { log } from "../../lib/log";
import { oauthHelpers } from "../authorization-server";
import { OidcFailure, redeemCallback, type SignInSecrets } from "../oidc/oidc-client";
import { oidcSettings } from "../oidc/oidc-settings";
import { userForIdentity } from "../oidc/identities.repo";
import type { AuthUser } from "../principal";
import { normalizeScopes } from "../scopes";
import { type AuthorizeEnv, guarded } from "./authorize.routes";
import { startSession } from "./browser";
import { completeFor, consentKey, issuerOfRequest } from "./grant";
import { finishReturnSignIn, type ResumedReturn } from "./oidc-return-sign-in";
import { FAILURE_STATUS, OIDC_CALLBACK_PATH, OIDC_METHOD_ID, providerFailurePage, withCookies } from "./oidc-sign-in";
import { errorPage } from "./pages";
import { saveConsent } from "./sign-in.repo";

/** What `continueAtProvider` saved with the request (decrypted by the library; checked anyway). */
const SavedSecrets = z.object({ verifier: z.string().min(43), nonce: z.string().min(1) });

/** The local user of the provider's (issuer, subject) the callback names, created at the first sign-in. */
async function localUser(db: Db, env: Env, callback: URL, redirectUri: string, secrets: SignInSecrets): Promise<AuthUser> {
  const state = callback.searchParams.get("state") ?? "";
  const identity = await redeemCallback(oidcSettings(env), callback, { state, redirectUri, secrets });
  const { user, created } = await userForIdentity(db, identity, new Date().toISOString());
  if (created) log.info("oidc user created", { user: user.id, issuer: identity.issuer });
  return user;
}

function failed(error: unknown): OidcFailure {
  if (!(error instanceof OidcFailure)) throw error;
  log.warn("oidc sign-in failed", { kind: error.kind, reason: error.message });
  return error;
}

/** A sign-in made to come back to one of our own pages: the session, then back there. */
async function signInAndReturn(db: Db, env: Env, callback: URL, redirectUri: string, returning: ResumedReturn): Promise<Response> {
  let user: AuthUser;
  try {
    user = await localUser(db, env, callback, redirectUri, returning.secrets);
  } catch (error) {
    const failure = failed(error);
    return withCookies(errorPage(failure.message, FAILURE_STATUS[failure.kind]), returning.headers);
  }
  returning.headers.append("Set-Cookie", await startSession(db, user, OIDC_METHOD_ID, null));
  returning.headers.set("Location", returning.returnTo);
  return new Response(null, { status: 303, headers: returning.headers });
}

/** An app's sign-in, approved here before the redirect: the session, the remembered consent, the code. */
async function signInAndGrant(db: Db, env: Env, request: Request, issuer: string, redirectUri: string): Promise<Response> {
  const resumed = await oauthHelpers(issuer, env).finishUpstream(request);
  const secrets = SavedSecrets.safeParse(resumed.data);
  if (!secrets.success) throw new AppError("invalid_input", "This sign-in has no saved state; start again from the app");
  let user: AuthUser;
  try {
    user = await localUser(db, env, new URL(request.url), redirectUri, secrets.data);
  } catch (error) {
    return providerFailurePage(failed(error), resumed.request, resumed.headers);
  }
  const scopes = normalizeScopes(resumed.request.scope);
  await saveConsent(db, consentKey(issuer, resumed.request, user.id), scopes, new Date().toISOString());
  resumed.headers.append("Set-Cookie", await startSession(db, user, OIDC_METHOD_ID, null));
  return completeFor(issuer, env, resumed.request, user, scopes, resumed.headers);
}

export function oidcCallbackRoutes(): Hono<AuthorizeEnv> {
  const app = new Hono<AuthorizeEnv>();
  app.get(
    OIDC_CALLBACK_PATH,
    guarded(async (c) => {
      const issuer = issuerOfRequest(c.req.raw, c.env.SELF_ORIGIN);
      const redirectUri = `${issuer}${OIDC_CALLBACK_PATH}`;
      const db = openDb(c.env.DB);
      const returning = await finishReturnSignIn(c.env, c.req.raw);
      if (returning) return signInAndReturn(db, c.env, new URL(c.req.url), redirectUri, returning);
      return signInAndGrant(db, c.env, c.req.raw, issuer, redirectUri);
    }),
  );
  return app;
}

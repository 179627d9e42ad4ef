/**
 * GET /authorize/oidc/callback: where the OpenID provider sends the browser back. The library's
 * `finishUpstream` recovers the approved authorization request and our PKCE verifier and nonce
 * (refused unless this browser holds the `state`'s binding cookie, and only once); the code is
 * redeemed and the ID Token validated (oidc-client.ts); the provider's (issuer, subject) becomes a
 * local user — created at the first sign-in — who gets a sign-in session, remembered consent for
 * what they approved before the redirect, and the code for the client.
 */
import { Hono } from "hono";
import * as z from "zod";
import { openDb } from "../../lib/db";
import { AppError } from "../../lib/errors";
import { log } from "../../lib/log";
import { oauthHelpers } from "../authorization-server";
import { OidcFailure, redeemCallback } from "../oidc/oidc-client";
import { oidcSettings } from "../oidc/oidc-settings";
import { userForIdentity } from "../oidc/identities.repo";
import { normalizeScopes } from "../scopes";
import { type AuthorizeEnv, guarded } from "./authorize.routes";
import { startSession } from "./browser";
import { completeFor, consentKey, issuerOfRequest } from "./grant";
import { OIDC_CALLBACK_PATH, OIDC_METHOD_ID, providerFailurePage } from "./oidc-sign-in";
import { saveConsent } from "./sign-in.repo";

/** What `continueAtProvider` saved with the request (decrypted by the library; checked anyway). */
const SavedSecrets = z.object({ verifier: z.string().min(43), nonce: z.string().min(1) });

export function oidcCallbackRoutes(): Hono<AuthorizeEnv> {
  const app = new Hono<AuthorizeEnv>();
  app.get(
    OIDC_CALLBACK_PATH,
    guarded(async (c) => {
      const issuer = issuerOfRequest(c.req.raw, c.env.SELF_ORIGIN);
      const resumed = await oauthHelpers(issuer, c.env).finishUpstream(c.req.raw);
      const secrets = SavedSecrets.safeParse(resumed.data);
      if (!secrets.success) throw new AppError("invalid_input", "This sign-in has no saved state; start again from the app");
      const callback = new URL(c.req.url);
      const state = callback.searchParams.get("state") ?? "";
      let identity;
      try {
        identity = await redeemCallback(oidcSettings(c.env), callback, { state, redirectUri: `${issuer}${OIDC_CALLBACK_PATH}`, secrets: secrets.data });
      } catch (error) {
        if (!(error instanceof OidcFailure)) throw error;
        log.warn("oidc sign-in failed", { kind: error.kind, reason: error.message });
        return providerFailurePage(error, resumed.request, resumed.headers);
      }
      const db = openDb(c.env.DB);
      const now = new Date().toISOString();
      const { user, created } = await userForIdentity(db, identity, now);
      if (created) log.info("oidc user created", { user: user.id, issuer: identity.issuer });
      const scopes = normalizeScopes(resumed.request.scope);
      await saveConsent(db, consentKey(issuer, resumed.request, user.id), scopes, now);
      resumed.headers.append("Set-Cookie", await startSession(db, user, OIDC_METHOD_ID, null));
      return completeFor(issuer, c.env, resumed.request, user, scopes, resumed.headers);
    }),
  );
  return app;
}

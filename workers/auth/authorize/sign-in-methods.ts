/**
 * How a user proves who they are on the /authorize page. Each method renders its own part of the
 * sign-in page and verifies what its form posts: paste an API token, or paste the code of a
 * one-time sign-in link (`npm run token -- login-link`). A method may answer with a page of its
 * own instead of a user: the OpenID provider's method (oidc-sign-in.ts) answers with the consent
 * page, whose Allow continues at the provider.
 */
import { AppError } from "../../lib/errors";
import type { AuthUser } from "../principal";
import type { SignInService } from "../sign-in.service";
import { LOGIN_CODE_SECONDS } from "../tokens";

export interface SignInContext {
  signIn: SignInService;
  env: Env;
  /** This origin's OAuth issuer (the authorization request belongs to it). */
  issuer: string;
  request: Request;
  /** The authorization request to go back to once signed in (a validated `/authorize?…` path). */
  returnTo: string;
}

/**
 * A signed-in user with the most the sign-in may grant (`scopes`: a scoped API token's own; null =
 * every scope), or a response to send instead (for example a redirect to another sign-in site).
 */
export type SignInResult = { user: AuthUser; scopes: readonly string[] | null } | { response: Response };

export interface SignInMethod {
  /** Posted as `method`; also stored on the session. */
  id: string;
  title: string;
  /** The submit button's label; default "Continue". */
  button?: string;
  /** The inputs of this method's form, as escaped HTML (the page adds the form, CSRF and return fields). */
  fields(): string;
  /** Verifies the posted form; throws an AppError the page shows when it does not sign anyone in. */
  submit(form: FormData, ctx: SignInContext): Promise<SignInResult>;
}

function textField(form: FormData, name: string, what: string): string {
  const value = form.get(name);
  if (typeof value !== "string" || value.trim() === "") throw new AppError("invalid_input", `Enter ${what}`);
  if (value.length > 512) throw new AppError("invalid_input", `That is not ${what}`);
  return value.trim();
}

export const apiTokenSignIn: SignInMethod = {
  id: "api_token",
  title: "Sign in with an API token",
  fields: () =>
    `<div class="field"><label class="field-label" for="token">API token</label>` +
    `<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required aria-describedby="token-help">` +
    `<p class="help" id="token-help">An <code>mcpe_…</code> token from <code>npm run token -- create --user NAME</code>. It only proves who you are; the app gets its own token.</p></div>`,
  async submit(form, { signIn }) {
    const row = await signIn.apiToken(textField(form, "token", "an API token"));
    if (!row) throw new AppError("unauthorized", "That API token is not valid (or was revoked)");
    // A token limited to some scopes cannot be used to grant an app more than it has itself.
    return { user: row.user, scopes: row.scopes };
  },
};

export const loginCodeSignIn: SignInMethod = {
  id: "login_link",
  title: "Sign in with a one-time code",
  fields: () =>
    `<div class="field"><label class="field-label" for="code">Sign-in code</label>` +
    `<input id="code" name="code" autocomplete="one-time-code" spellcheck="false" required aria-describedby="code-help">` +
    `<p class="help" id="code-help">Run <code>npm run token -- login-link --user NAME</code> and open the link it prints in this browser, or paste its code here. Each code works once, for ${LOGIN_CODE_SECONDS / 60} minutes.</p></div>`,
  async submit(form, { signIn }) {
    return { user: await signIn.redeemLoginCode(textField(form, "code", "a sign-in code")), scopes: null };
  },
};

/** The methods the page offers, in order. */
export const SIGN_IN_METHODS: readonly SignInMethod[] = [loginCodeSignIn, apiTokenSignIn];

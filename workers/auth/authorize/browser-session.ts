/**
 * Who this browser is signed in as, for every page that acts for a signed-in user: /authorize and
 * the upstream connect links (`/oauth/upstream/connect`, `/oauth/upstream/start`). Without a
 * session, the answer is the sign-in page with this Worker's one list of sign-in methods — its
 * OpenID provider first when one is configured — returning to the page asked for afterwards. One
 * module, so a page cannot offer fewer ways in than another (the connect pages once lacked the
 * provider, and an OpenID-only deployment could not connect a source from a fresh browser).
 */
import { oidcConfigured } from "../oidc/oidc-settings";
import { AUTHORIZE_PATH } from "../paths";
import type { SignInService } from "../sign-in.service";
import { csrfToken, pendingCookie } from "./browser";
import { oidcSignInMethod } from "./oidc-sign-in";
import { signInPage } from "./pages";
import { SIGN_IN_METHODS, type SignInMethod } from "./sign-in-methods";
import type { SessionRow } from "./sign-in.repo";

/** The sign-in methods of this Worker: its OpenID provider first when one is configured, then the built-in ones. */
export function signInMethods(env: Env): readonly SignInMethod[] {
  return oidcConfigured(env) ? [oidcSignInMethod(env), ...SIGN_IN_METHODS] : SIGN_IN_METHODS;
}

/** What the sign-in page says it is for: an app's request, or one of this Worker's own pages (a connect link). */
function purposeOf(returnTo: string): { title: string; intro: string } {
  if (returnTo.startsWith(`${AUTHORIZE_PATH}?`)) {
    const intro =
      "An app asked to use mcp-edge on your behalf. Sign in first; you will then see what it asks for and can allow or deny it.";
    return { title: "Sign in to authorize an app", intro };
  }
  return { title: "Sign in to mcp-edge", intro: "Sign in first; you will then see what this link does and can continue or stop." };
}

export interface SignInPageOptions {
  /** A validated `safeReturnTo` path: where the sign-in goes back to. */
  returnTo: string;
  error?: string;
  status?: number;
}

/** The sign-in page, with a CSRF token for its forms and the return remembered for a sign-in link opened in this browser. */
export async function signInPageFor(env: Env, request: Request, options: SignInPageOptions): Promise<Response> {
  const csrf = await csrfToken(request);
  const headers = new Headers();
  headers.append("Set-Cookie", csrf.cookie);
  headers.append("Set-Cookie", pendingCookie(options.returnTo));
  return signInPage({
    methods: signInMethods(env),
    csrf: csrf.token,
    returnTo: options.returnTo,
    purpose: purposeOf(options.returnTo),
    error: options.error,
    ...(options.status === undefined ? {} : { status: options.status }),
    headers,
  });
}

/**
 * This browser's session, or the sign-in page that returns to `returnTo` (default: the request's
 * own path and query) once signed in.
 */
export async function sessionOrSignIn(
  signIn: SignInService,
  env: Env,
  request: Request,
  returnTo?: string,
): Promise<{ session: SessionRow } | { response: Response }> {
  const session = await signIn.session(request);
  if (session) return { session };
  const url = new URL(request.url);
  return { response: await signInPageFor(env, request, { returnTo: returnTo ?? `${url.pathname}${url.search}` }) };
}

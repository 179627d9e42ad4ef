/**
 * /authorize: the authorization endpoint's page. GET validates the request (the library's
 * `parseAuthRequest`, after our own checks), asks the user to sign in if this browser has no
 * session, then shows consent — or completes at once when the user already approved these scopes
 * for this client, redirect URI and resource. POST receives the sign-in and consent forms.
 * /authorize/link is where a one-time sign-in link lands. Sign-in with an OpenID provider shows
 * consent first and continues at the provider (oidc-sign-in.ts, oidc-callback.routes.ts). Sessions,
 * remembered consent and the grant are the sign-in service's (sign-in.service.ts); the entry routes
 * each path here (workers/sign-in-routes.ts).
 *
 * Errors before the client and its redirect URI are validated are shown here; after, they go
 * back to the client as `error`, `state` and `iss` (the library's `AuthorizationError.redirectTo`).
 */
import { authorizationErrorRedirect } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { AppError } from "../../lib/errors";
import { isClientIdUrl } from "../client-id-guard";
import { issuer } from "../issuer";
import { oidcConfigured } from "../oidc/oidc-settings";
import type { AuthUser } from "../principal";
import { redirectUriProblem } from "../redirect-uris";
import { inferResource, resourceFacts, resourceUrl } from "../resources";
import { normalizeScopes } from "../scopes";
import type { Services } from "../../services";
import type { SignInService } from "../sign-in.service";
import { checkCsrf, clearCookie, csrfToken, PENDING_COOKIE, readCookie, safeReturnTo } from "./browser";
import { sessionOrSignIn, signInMethods, signInPageFor } from "./browser-session";
import { clientFacts } from "./client-facts";
import { authorizationFailure } from "./failures";
import { parseAuthorization, pathOfResource } from "./grant";
import { continueAtProvider, OIDC_METHOD_ID } from "./oidc-sign-in";
import { consentPage, errorPage, linkConfirmPage, signedInPage } from "./pages";
import { offeredScopes } from "./scope-offer";

/**
 * What a route of the sign-in wing (workers/sign-in-routes.ts) reads of a request besides the
 * bindings: its services, set before it by http/request-services.ts. No user: a sign-in route knows
 * its user by a browser session, if at all. Declared here, where sign-in's routes are, because
 * http/ already depends on auth/ (a folder cycle otherwise).
 */
export type SignInEnv = { Bindings: Env; Variables: { services: Services } };

type SignInContext = Context<SignInEnv>;

/** A handler of the /authorize pages whose every failure answers as failures.ts says, never a 500. */
export function guarded(handle: (c: SignInContext) => Promise<Response>) {
  return async (c: SignInContext) => {
    try {
      return await handle(c);
    } catch (error) {
      return authorizationFailure(error);
    }
  };
}

/** Authorization requests are links; anything longer than this is not one a client sends. */
const MAX_AUTHORIZE_URL_CHARS = 8 * 1024;
const MAX_FORM_BYTES = 16 * 1024;
/** Parameters that must appear at most once (RFC 6749 §3.1); a repeated `resource` is the library's `invalid_target`. */
const SINGLE_PARAMETERS = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"];

const NOTHING_TO_GRANT =
  "You signed in with an API token that grants none of the permissions this app asks for. Sign in with a one-time link (or a token with these scopes) instead.";

function signInOf(c: SignInContext): SignInService {
  return c.var.services.signIn;
}

/**
 * Our checks before the library's: size, repeated parameters, the redirect URI's scheme, a
 * metadata-document client_id's checks and fetch, and the resource a client that omitted it meant
 * (inferred from its scopes).
 */
async function preparedRequest(signIn: SignInService, request: Request, issuer: string): Promise<Request> {
  if (request.url.length > MAX_AUTHORIZE_URL_CHARS) throw AppError.invalid("The authorization request is too long");
  const url = new URL(request.url);
  for (const name of SINGLE_PARAMETERS) {
    if (url.searchParams.getAll(name).length > 1) throw AppError.invalid(`The parameter ${name} appears more than once`);
  }
  const redirectUri = url.searchParams.get("redirect_uri");
  const redirectProblem = redirectUri === null ? undefined : redirectUriProblem(redirectUri);
  if (redirectProblem) throw AppError.invalid(redirectProblem, "redirect_uri");
  const clientId = url.searchParams.get("client_id");
  if (clientId && isClientIdUrl(clientId)) await signIn.prepareClientMetadata(request, clientId);
  if (!url.searchParams.has("resource")) {
    const scopes = normalizeScopes((url.searchParams.get("scope") ?? "").split(" "));
    url.searchParams.set("resource", resourceUrl(issuer, inferResource(scopes)));
    return new Request(url, request);
  }
  return request;
}

async function showAuthorize(c: SignInContext): Promise<Response> {
  const at = issuer(c.req.raw, c.env);
  const signIn = signInOf(c);
  const request = await preparedRequest(signIn, c.req.raw, at);
  const oauth = signIn.oauth(at);
  const authRequest = await parseAuthorization(oauth, request, at);
  const url = new URL(request.url);
  // The request as prepared (a resource inferred) is what the sign-in returns to.
  const signed = await sessionOrSignIn(signIn, c.env, c.req.raw, `${url.pathname}${url.search}`);
  if ("response" in signed) return signed.response;
  const { user, scopes: cap } = signed.session;
  const path = pathOfResource(at, authRequest.resource);
  const scopes = offeredScopes(path, authRequest, cap);
  if (scopes.length === 0) return errorPage(NOTHING_TO_GRANT, 403);
  const granted = await signIn.rememberedGrant(at, authRequest, user.id, scopes);
  if (granted) return signIn.complete(at, { request: authRequest, user, scopes: granted });
  const client = await clientFacts(oauth, at, c.env, authRequest);
  const consent = await oauth.beginConsent(authRequest);
  return consentPage(
    {
      ...client,
      resource: authRequest.resource ?? at,
      resourceName: resourceFacts(path).name,
      userName: user.name,
      scopes,
      handle: consent.handle,
    },
    consent.headers,
  );
}

/** Signs this browser in as `user` and returns to the authorization in progress (its consent page next). */
async function finishSignIn(
  signIn: SignInService,
  user: AuthUser,
  method: string,
  returnTo: string,
  scopes: readonly string[] | null = null,
): Promise<Response> {
  const headers = new Headers({ Location: returnTo, "Cache-Control": "no-store" });
  headers.append("Set-Cookie", await signIn.startSession(user, method, scopes));
  headers.append("Set-Cookie", clearCookie(PENDING_COOKIE));
  return new Response(null, { status: 303, headers });
}

async function readForm(request: Request): Promise<FormData> {
  if (Number(request.headers.get("content-length") ?? "0") > MAX_FORM_BYTES) throw AppError.invalid("The form is too large");
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get("content-type") ?? ""))
    throw AppError.invalid("Expected a form post");
  return request.formData();
}

async function signInWith(c: SignInContext, form: FormData): Promise<Response> {
  await checkCsrf(c.req.raw, form);
  const returnTo = safeReturnTo(form.get("return_to"));
  if (!returnTo) throw AppError.invalid("This form does not belong to an authorization request");
  const method = signInMethods(c.env).find((candidate) => candidate.id === form.get("method"));
  if (!method) throw AppError.invalid("Unknown sign-in method");
  const signIn = signInOf(c);
  try {
    const result = await method.submit(form, { signIn, env: c.env, issuer: issuer(c.req.raw, c.env), request: c.req.raw, returnTo });
    return "response" in result ? result.response : await finishSignIn(signIn, result.user, method.id, returnTo, result.scopes);
  } catch (error) {
    if (!(error instanceof AppError) || error.code === "internal") throw error;
    return signInPageFor(c.env, c.req.raw, { returnTo, error: error.message, status: error.status });
  }
}

async function answerConsent(c: SignInContext, form: FormData): Promise<Response> {
  const at = issuer(c.req.raw, c.env);
  const origin = c.req.header("origin");
  if (origin !== undefined && origin !== new URL(c.req.url).origin)
    throw new AppError("forbidden", "This form was posted from another site");
  const handle = form.get("handle");
  if (typeof handle !== "string" || handle === "") throw AppError.invalid("This consent form has no transaction; start again from the app");
  const signIn = signInOf(c);
  const oauth = signIn.oauth(at);
  const session = await signIn.session(c.req.raw);
  // Consent before signing in at the OpenID provider: the provider says who comes next, even if this
  // browser signed in as someone else meanwhile (the page promised the account signed in there).
  const signInNext = form.get("then") === OIDC_METHOD_ID && oidcConfigured(c.env);
  const chosen = form.getAll("scope").map(String);
  if ((!session && !signInNext) || form.get("decision") !== "approve" || chosen.length === 0) {
    const denied = await oauth.denyConsent(c.req.raw, handle, session || signInNext ? {} : { description: "The sign-in expired" });
    return new Response(null, { status: 302, headers: denied.headers });
  }
  // The request comes back from storage (never from the form); the user may only narrow its scopes.
  const approved = await oauth.approveConsent(c.req.raw, handle);
  const cap = signInNext || !session ? null : session.scopes;
  const offered = offeredScopes(pathOfResource(at, approved.request.resource), approved.request, cap);
  const scopes = offered.filter((scope) => chosen.includes(scope));
  if (scopes.length === 0) {
    approved.headers.set("Location", authorizationErrorRedirect(approved.request, "access_denied", "No permission was allowed"));
    return new Response(null, { status: 302, headers: approved.headers });
  }
  if (signInNext || !session) return continueAtProvider(signIn, at, approved, scopes);
  await signIn.rememberConsent(at, approved.request, session.user.id, scopes);
  return signIn.complete(at, { request: approved.request, user: session.user, scopes }, approved.headers);
}

async function postAuthorize(c: SignInContext): Promise<Response> {
  const form = await readForm(c.req.raw);
  const kind = form.get("form");
  if (kind === "sign_in") return signInWith(c, form);
  if (kind === "consent") return answerConsent(c, form);
  throw AppError.invalid("Unknown form");
}

async function showLink(c: SignInContext): Promise<Response> {
  const code = c.req.query("code") ?? "";
  const user = code.length > 0 && code.length <= 128 ? await signInOf(c).usableLink(code) : undefined;
  if (!user)
    return errorPage(
      "This sign-in link is not valid: it was already used, has expired, or was copied incompletely. Print a new one with `npm run token -- login-link --user NAME`.",
    );
  const csrf = await csrfToken(c.req.raw);
  return linkConfirmPage(user.name, code, csrf.token, new Headers({ "Set-Cookie": csrf.cookie }));
}

async function useLink(c: SignInContext): Promise<Response> {
  const form = await readForm(c.req.raw);
  await checkCsrf(c.req.raw, form);
  const code = form.get("code");
  if (typeof code !== "string" || code === "" || code.length > 128) throw AppError.invalid("This sign-in link has no code");
  const signIn = signInOf(c);
  const user = await signIn.redeemLoginCode(code);
  const returnTo = safeReturnTo(readCookie(c.req.raw, PENDING_COOKIE));
  if (returnTo) return finishSignIn(signIn, user, "login_link", returnTo);
  const headers = new Headers();
  headers.append("Set-Cookie", await signIn.startSession(user, "login_link", null));
  return signedInPage(user.name, headers);
}

/**
 * POST /authorize/sign-out: the console's sign-out ends this browser's sign-in here too, or the
 * next sign-in would pass without asking. Same-origin only (a cross-site post is refused): the
 * session cookie is SameSite=Lax, so another site's form could otherwise sign the user out.
 */
async function signOut(c: SignInContext): Promise<Response> {
  if (c.req.header("origin") !== new URL(c.req.url).origin) throw new AppError("forbidden", "Sign out from this Worker's own pages");
  const cookie = await signInOf(c).endSession(c.req.raw);
  return new Response(null, { status: 204, headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } });
}

/** GET /authorize: the sign-in page, then consent (or the grant at once, when remembered consent covers it). */
export const authorizePage = guarded(showAuthorize);
/** POST /authorize: the sign-in and consent forms. */
export const authorizeForm = guarded(postAuthorize);
/** GET /authorize/link: a one-time sign-in link's confirmation. */
export const signInLinkPage = guarded(showLink);
/** POST /authorize/link: its form. */
export const signInLinkForm = guarded(useLink);
/** POST /authorize/sign-out. */
export const signOutForm = guarded(signOut);

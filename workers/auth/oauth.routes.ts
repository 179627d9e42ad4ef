/**
 * The OAuth endpoints: discovery, token (with revocation), dynamic client registration, and the
 * console's own client id (console-client.ts). The library serves the first three; in front of it
 * run the checks it leaves to us — the issuer's origin, body size, a metadata-document client_id's
 * checks and fetch (client-id-guard.ts), the registration rate limit and the registration's
 * cleaning (registration-body.ts) — and behind it refresh-token reuse detection and the end of
 * the grants a newly exchanged code replaces (grant-replacement.ts). /authorize (sign-in and
 * consent) is authorize.routes.ts; the entry routes each path here (workers/sign-in-routes.ts).
 */
import type { Context } from "hono";
import type { SignInEnv } from "./authorize/authorize.routes";
import { AppError } from "../lib/errors";
import { isClientIdUrl } from "./client-id-guard";
import { consoleClientId, consoleRedirectUri } from "./console-client";
import { protectedResourceMetadata as metadataOf } from "./discovery";
import { endReplacedGrants } from "./grant-replacement";
import { issuer } from "./issuer";
import { guardOAuth, oauthError, readLimitedText } from "./oauth-errors";
import { rememberIssuedRefreshToken, revokeOnReplay } from "./refresh-reuse";
import { cleanedRegistration } from "./registration-body";
import { resourcePathOfMetadata } from "./resources";
import { presentedClientId } from "./token-request";

type OAuthContext = Context<SignInEnv>;

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, HEAD, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, Mcp-Protocol-Version",
  "Access-Control-Max-Age": "86400",
};

type HonoExecutionContext = OAuthContext["executionCtx"];

/**
 * Hono types the execution context narrowly; at run time it is the Worker's own. The library's
 * authorization-server endpoints use nothing of it but `waitUntil` (its `ctx` reaches only API and
 * default handlers, which we do not give it), so that is what is checked.
 */
function isWorkerContext(ctx: HonoExecutionContext): ctx is ExecutionContext {
  return typeof ctx.waitUntil === "function";
}

function workerContext(c: OAuthContext): ExecutionContext {
  const ctx = c.executionCtx;
  if (!isWorkerContext(ctx)) throw new Error("OAuth endpoints need the Worker's execution context");
  return ctx;
}

/** `answer` at the request's issuer; without one, the one refusal (auth/issuer.ts) in the OAuth error shape. */
function atIssuer(c: OAuthContext, answer: (issuer: string) => Response | Promise<Response>): Response | Promise<Response> {
  let at: string;
  try {
    at = issuer(c.req.raw, c.env);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return oauthError("invalid_request", error.message);
  }
  return answer(at);
}

/** The library's endpoint as it is: the request handed over whole. */
function libraryServed(c: OAuthContext, at: string, request = c.req.raw): Promise<Response> {
  return c.var.services.signIn.server(at).fetch(request, c.env, workerContext(c));
}

function metadataDocument(c: OAuthContext): Response | Promise<Response> {
  if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
  const path = resourcePathOfMetadata(new URL(c.req.url).pathname);
  if (path === undefined) return oauthError("invalid_request", "No protected resource has metadata at this path", 404);
  return atIssuer(c, (at) => {
    const body = c.req.method === "HEAD" ? null : JSON.stringify(metadataOf(at, path, c.env));
    return new Response(body, { headers: { "Content-Type": "application/json", "Cache-Control": "public, max-age=300", ...CORS } });
  });
}

async function tokenEndpoint(c: OAuthContext, at: string): Promise<Response> {
  const request = c.req.raw;
  if (request.method !== "POST") return libraryServed(c, at);
  const text = await readLimitedText(request);
  if (text === undefined) return oauthError("invalid_request", "The request body is too large", 413);
  const form = new URLSearchParams(text);
  const clientId = presentedClientId(request, form);
  const signIn = c.var.services.signIn;
  if (clientId && isClientIdUrl(clientId)) {
    try {
      await signIn.prepareClientMetadata(request, clientId);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === "rate_limited") return oauthError("temporarily_unavailable", error.message, 429, { "Retry-After": "60" });
      return oauthError("invalid_client", error.message, 401);
    }
  }
  const response = await libraryServed(c, at, new Request(request, { body: text }));
  const refreshToken = form.get("grant_type") === "refresh_token" ? form.get("refresh_token") : null;
  if (response.status === 400 && refreshToken) {
    const error: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    if (typeof error === "object" && error !== null && "error" in error && error.error === "invalid_grant") {
      await revokeOnReplay(signIn.oauth(at), c.env, refreshToken, clientId);
    }
  }
  const grantType = form.get("grant_type");
  if (grantType === "authorization_code") await endReplacedGrants(signIn.oauth(at), c.env, response);
  if (grantType === "authorization_code" || grantType === "refresh_token") {
    await rememberIssuedRefreshToken(c.env, response, { clientId, presentedRefreshToken: refreshToken });
  }
  return response;
}

async function registrationEndpoint(c: OAuthContext, at: string): Promise<Response> {
  const request = c.req.raw;
  if (request.method === "POST") {
    const caller = request.headers.get("cf-connecting-ip") ?? "unknown";
    const { success } = await c.env.DCR_RATE_LIMITER.limit({ key: `dcr:${caller}` });
    if (!success)
      return oauthError("temporarily_unavailable", "Too many client registrations from this address; try again in a minute", 429, {
        "Retry-After": "60",
      });
    const text = await readLimitedText(request);
    if (text === undefined) return oauthError("invalid_client_metadata", "The registration request is too large", 413);
    // The body may change length (a cleaned client_name, a dropped client_uri): its old Content-Length must not travel on.
    const headers = new Headers(request.headers);
    headers.delete("content-length");
    return libraryServed(c, at, new Request(request.url, { method: "POST", headers, body: cleanedRegistration(text) }));
  }
  return libraryServed(c, at);
}

/** The console's own client (console-client.ts): what it signs in with, on this origin only. */
async function consoleClient(c: OAuthContext, at: string): Promise<Response> {
  const body = { client_id: await consoleClientId(c.var.services.signIn.oauth(at), at, c.env), redirect_uri: consoleRedirectUri(at) };
  return new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
}

/** Serves one library endpoint: the issuer check first, then the endpoint under guard. */
function served(endpoint: string, handle: (c: OAuthContext, issuer: string) => Promise<Response>) {
  return (c: OAuthContext) => atIssuer(c, (at) => guardOAuth(endpoint, () => handle(c, at)));
}

/** GET, HEAD, OPTIONS /.well-known/oauth-protected-resource[<resource path>] (RFC 9728). */
export const protectedResourceMetadata = metadataDocument;
/** /.well-known/oauth-authorization-server (RFC 8414), the library's. */
export const authorizationServerMetadata = served("metadata", (c, at) => libraryServed(c, at));
/** /oauth/token: code and refresh exchanges, revocation. */
export const token = served("token", tokenEndpoint);
/** /oauth/register: dynamic client registration. */
export const registration = served("registration", registrationEndpoint);
/** GET /oauth/console-client. */
export const consoleClientEndpoint = served("console client", consoleClient);

/**
 * The OAuth endpoints: discovery, token (with revocation), dynamic client registration, and the
 * console's own client id (console-client.ts). The library serves the first three; in front of it
 * run the checks it leaves to us — the issuer's origin, body size, a metadata-document client_id's
 * checks and fetch (client-id-guard.ts), the registration rate limit and the registration's
 * cleaning (registration-body.ts) — and behind it refresh-token reuse detection and the end of
 * the grants a newly exchanged code replaces (grant-replacement.ts). /authorize (sign-in and
 * consent) is authorize.routes.ts.
 */
import { type Context, Hono } from "hono";
import { authorizationServer, REGISTER_PATH, TOKEN_PATH } from "./authorization-server";
import { AppError } from "../lib/errors";
import { isClientIdUrl, prepareClientMetadata } from "./client-id-guard";
import { CONSOLE_CLIENT_PATH, consoleClientId, consoleRedirectUri } from "./console-client";
import { protectedResourceMetadata } from "./discovery";
import { endReplacedGrants } from "./grant-replacement";
import { guardOAuth, oauthError, readLimitedText } from "./oauth-errors";
import { rememberIssuedRefreshToken, revokeOnReplay } from "./refresh-reuse";
import { cleanedRegistration } from "./registration-body";
import { issuerFor, resourcePathOfMetadata } from "./resources";
import { presentedClientId } from "./token-request";

/** These routes read no per-request variables (no services, no caller): the bindings are all they need. */
type WorkerEnv = { Bindings: Env };

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, HEAD, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, Mcp-Protocol-Version",
  "Access-Control-Max-Age": "86400",
};

type HonoExecutionContext = Context<WorkerEnv>["executionCtx"];

/**
 * Hono types the execution context narrowly; at run time it is the Worker's own. The library's
 * authorization-server endpoints use nothing of it but `waitUntil` (its `ctx` reaches only API and
 * default handlers, which we do not give it), so that is what is checked.
 */
function isWorkerContext(ctx: HonoExecutionContext): ctx is ExecutionContext {
  return typeof ctx.waitUntil === "function";
}

function workerContext(c: Context<WorkerEnv>): ExecutionContext {
  const ctx = c.executionCtx;
  if (!isWorkerContext(ctx)) throw new Error("OAuth endpoints need the Worker's execution context");
  return ctx;
}

/** The issuer of this request's origin, or the 400 for an origin OAuth cannot serve. */
export function issuerOrRefusal(c: Context<WorkerEnv>): { issuer: string } | { refusal: Response } {
  const issuer = issuerFor(new URL(c.req.url), c.env.SELF_ORIGIN);
  if (issuer) return { issuer };
  return {
    refusal: oauthError("invalid_request", "OAuth is not available at this origin: use https, or http on localhost / 127.0.0.1 (set SELF_ORIGIN to the public origin)"),
  };
}

function metadataDocument(c: Context<WorkerEnv>): Response {
  if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
  const path = resourcePathOfMetadata(new URL(c.req.url).pathname);
  if (path === undefined) return oauthError("invalid_request", "No protected resource has metadata at this path", 404);
  const found = issuerOrRefusal(c);
  if ("refusal" in found) return found.refusal;
  const body = c.req.method === "HEAD" ? null : JSON.stringify(protectedResourceMetadata(found.issuer, path, c.env));
  return new Response(body, { headers: { "Content-Type": "application/json", "Cache-Control": "public, max-age=300", ...CORS } });
}

async function tokenEndpoint(c: Context<WorkerEnv>, issuer: string): Promise<Response> {
  const request = c.req.raw;
  if (request.method !== "POST") return authorizationServer(issuer).fetch(request, c.env, workerContext(c));
  const text = await readLimitedText(request);
  if (text === undefined) return oauthError("invalid_request", "The request body is too large", 413);
  const form = new URLSearchParams(text);
  const clientId = presentedClientId(request, form);
  if (clientId && isClientIdUrl(clientId)) {
    try {
      await prepareClientMetadata(c.env, request, clientId);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === "rate_limited") return oauthError("temporarily_unavailable", error.message, 429, { "Retry-After": "60" });
      return oauthError("invalid_client", error.message, 401);
    }
  }
  const forward = new Request(request, { body: text });
  const response = await authorizationServer(issuer).fetch(forward, c.env, workerContext(c));
  const refreshToken = form.get("grant_type") === "refresh_token" ? form.get("refresh_token") : null;
  if (response.status === 400 && refreshToken) {
    const error: unknown = await response.clone().json().catch(() => undefined);
    if (typeof error === "object" && error !== null && "error" in error && error.error === "invalid_grant") {
      await revokeOnReplay(c.env, issuer, refreshToken, clientId);
    }
  }
  const grantType = form.get("grant_type");
  if (grantType === "authorization_code") await endReplacedGrants(c.env, issuer, response);
  if (grantType === "authorization_code" || grantType === "refresh_token") {
    await rememberIssuedRefreshToken(c.env, response, { clientId, presentedRefreshToken: refreshToken });
  }
  return response;
}

async function registrationEndpoint(c: Context<WorkerEnv>, issuer: string): Promise<Response> {
  const request = c.req.raw;
  if (request.method === "POST") {
    const caller = request.headers.get("cf-connecting-ip") ?? "unknown";
    const { success } = await c.env.DCR_RATE_LIMITER.limit({ key: `dcr:${caller}` });
    if (!success) return oauthError("temporarily_unavailable", "Too many client registrations from this address; try again in a minute", 429, { "Retry-After": "60" });
    const text = await readLimitedText(request);
    if (text === undefined) return oauthError("invalid_client_metadata", "The registration request is too large", 413);
    // The body may change length (a cleaned client_name, a dropped client_uri): its old Content-Length must not travel on.
    const headers = new Headers(request.headers);
    headers.delete("content-length");
    const registration = new Request(request.url, { method: "POST", headers, body: cleanedRegistration(text) });
    return authorizationServer(issuer).fetch(registration, c.env, workerContext(c));
  }
  return authorizationServer(issuer).fetch(request, c.env, workerContext(c));
}

/** The console's own client (console-client.ts): what it signs in with, on this origin only. */
async function consoleClient(c: Context<WorkerEnv>, issuer: string): Promise<Response> {
  const body = { client_id: await consoleClientId(issuer, c.env), redirect_uri: consoleRedirectUri(issuer) };
  return new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
}

/** Routes one library-served endpoint: the issuer check first, then the endpoint under guard. */
function served(endpoint: string, handle: (c: Context<WorkerEnv>, issuer: string) => Promise<Response>) {
  return (c: Context<WorkerEnv>) => {
    const found = issuerOrRefusal(c);
    if ("refusal" in found) return found.refusal;
    return guardOAuth(endpoint, () => handle(c, found.issuer));
  };
}

/** Discovery, token, revocation and registration endpoints, mounted at the root by workers/app.ts. */
export function oauthRoutes(): Hono<WorkerEnv> {
  const app = new Hono<WorkerEnv>();
  app.on(["GET", "HEAD", "OPTIONS"], "/.well-known/oauth-protected-resource", metadataDocument);
  app.on(["GET", "HEAD", "OPTIONS"], "/.well-known/oauth-protected-resource/*", metadataDocument);
  app.all(
    "/.well-known/oauth-authorization-server",
    served("metadata", (c, issuer) => authorizationServer(issuer).fetch(c.req.raw, c.env, workerContext(c))),
  );
  app.all(TOKEN_PATH, served("token", tokenEndpoint));
  app.all(REGISTER_PATH, served("registration", registrationEndpoint));
  app.get(CONSOLE_CLIENT_PATH, served("console client", consoleClient));
  return app;
}

/**
 * The browser side of upstream connections (connecting a source's upstream account):
 * - GET /oauth/gateway-client.json — mcp-edge's Client ID Metadata Document (public).
 * - GET /oauth/upstream/connect?source_id=… — the link an `authorization_required` call carries:
 *   a page saying what will be connected (connect-page.ts); it starts nothing.
 * - POST /oauth/upstream/connect — that page's form (CSRF token, same origin): starts a flow for
 *   the signed-in owner, asking for the scopes the source's upstream named.
 * - GET /oauth/upstream/start?flow=… — the one-time link POST /api/sources/{id}/authorize returns.
 * - GET /oauth/upstream/callback[/<issuer tag>] — the redirect URIs (the metadata document's, and
 *   one per authorization server: decision 0047): completes the flow when its answer came back to
 *   the one it was sent with, discovers the source's tools again, and returns the user to the
 *   console or a plain page.
 *
 * The connect and start links need this browser signed in to mcp-edge (the /authorize session, the
 * sign-in service's) as the source's owner — a link alone connects nothing — and bind the flow to this browser with a
 * `__Host-` cookie of its own the callback must present: a callback replayed, opened elsewhere or
 * swapped between users is refused (connect-flow.service.ts#complete). What an authorization
 * server says in its errors is never shown: only its OAuth error code (oauth-failure-text.ts).
 * The entry routes each path here (workers/sign-in-routes.ts).
 */
import type { Context } from "hono";
import { checkCsrf, clearCookie, csrfToken, readCookie, setCookie } from "../auth/authorize/browser";
import type { SignInEnv } from "../auth/authorize/authorize.routes";
import { sessionOrSignIn } from "../auth/authorize/browser-session";
import { errorPage } from "../auth/authorize/pages";
import { page, escapeHtml } from "../auth/authorize/html";
import { issuer } from "../auth/issuer";
import { randomSecret } from "../auth/tokens";
import { AppError } from "../lib/errors";
import { sha256Hex } from "../lib/encoding";
import { log } from "../lib/log";
import { FLOW_TTL_MS } from "./connect-flow.service";
import { connectPage as confirmationPage } from "./connect-page";
import { gatewayClientDocument, gatewayClientUrls } from "./gateway-client";
import { callbackErrorText } from "./oauth-failure-text";
import type { UpstreamConnections } from "./upstream-connections.service";

const FLOW_COOKIE_PREFIX = "__Host-mcpe-upstream-flow-";
/** What `state` can be: ours are base64url secrets; anything else names no cookie. */
const STATE_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The cookie binding the flow of `state` to the browser that opened its link. Each flow has its
 * own, so connects for several sources can be open in one browser and each callback finds and
 * clears only its own binding. The name is derived from `state`, which the start (in the
 * authorization URL) and the callback (in its query) both know, so nothing more is stored: 16 hex
 * digits of a SHA-256, bounded and cookie-name safe. The browser collects at most one cookie per
 * flow opened in it, each gone when its callback runs or after FLOW_TTL_MS, and a user has at
 * most MAX_OPEN_FLOWS flows unexpired (connect-flow.service.ts) — so a browser signed in as one
 * user holds at most that many. An absent or malformed `state` names no cookie.
 */
async function flowCookieName(state: string | null | undefined): Promise<string | undefined> {
  if (!state || !STATE_SHAPE.test(state)) return undefined;
  return FLOW_COOKIE_PREFIX + (await sha256Hex(`upstream flow cookie:${state}`)).slice(0, 16);
}
const NO_STORE = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };

/**
 * The request's upstream connections. Their links, redirect URIs and client document are made on
 * this Worker's issuer: an origin OAuth cannot serve is refused first (auth/issuer.ts).
 */
function connections(c: Context<SignInEnv>): UpstreamConnections {
  issuer(c.req.raw, c.env);
  return c.var.services.upstreamConnections;
}

/** The signed-in user of this browser, or the sign-in page (every sign-in method) that comes back here afterwards. */
async function browserUser(c: Context<SignInEnv>): Promise<{ userId: number } | { response: Response }> {
  const signed = await sessionOrSignIn(c.var.services.signIn, c.env, c.req.raw);
  return "response" in signed ? signed : { userId: signed.session.user.id };
}

/** Opens the flow in this browser: binds it with a fresh cookie of its own and sends the browser to the authorization server. */
async function sendToAuthorization(c: Context<SignInEnv>, flowId: string, userId: number, status: 302 | 303 = 302): Promise<Response> {
  const secret = randomSecret();
  const { authorizationUrl } = await connections(c).openStart(flowId, userId, secret);
  const cookie = await flowCookieName(new URL(authorizationUrl).searchParams.get("state"));
  if (!cookie) throw new AppError("internal", "The authorization URL carries no state to bind this browser to");
  const headers = new Headers({ Location: authorizationUrl, ...NO_STORE });
  headers.append("Set-Cookie", setCookie(cookie, secret, FLOW_TTL_MS / 1000));
  return new Response(null, { status, headers });
}

function sourceIdOf(value: unknown): number {
  const sourceId = typeof value === "string" && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(sourceId)) throw AppError.invalid("source_id must be a source's id");
  return sourceId;
}

const MAX_FORM_BYTES = 4096;

async function readForm(request: Request): Promise<FormData> {
  if (Number(request.headers.get("content-length") ?? "0") > MAX_FORM_BYTES) throw AppError.invalid("The form is too large");
  const form = /^application\/x-www-form-urlencoded\b/i.test(request.headers.get("content-type") ?? "");
  if (!form) throw AppError.invalid("Expected a form post");
  return request.formData();
}

function guarded(handler: (c: Context<SignInEnv>) => Promise<Response>) {
  return async (c: Context<SignInEnv>): Promise<Response> => {
    try {
      return await handler(c);
    } catch (error) {
      if (error instanceof AppError && error.code !== "internal") return errorPage(error.message, error.status);
      log.error("upstream connect page failed", { error: String(error) });
      return errorPage("Connecting failed for an internal reason; it has been logged. Start connecting again.", 500);
    }
  };
}

/** The connect link: what would be connected, and a form to confirm it. Nothing starts here (a `scope` in the link is not read). */
async function confirmConnect(c: Context<SignInEnv>): Promise<Response> {
  const signed = await browserUser(c);
  if ("response" in signed) return signed.response;
  const sourceId = sourceIdOf(c.req.query("source_id"));
  const source = await connections(c).source(signed.userId, sourceId);
  const confirmation = await connections(c).confirmation(signed.userId, sourceId);
  const csrf = await csrfToken(c.req.raw);
  const headers = new Headers({ "Set-Cookie": csrf.cookie });
  const returnTo = c.req.query("return_to") === "console" ? "console" : "page";
  const shown = { id: source.id, name: source.name, url: source.mcpServerUrl };
  return confirmationPage({ source: shown, confirmation, csrf: csrf.token, returnTo, headers });
}

/** The connect page's form: only from this origin, with this browser's CSRF token, by the signed-in owner. */
async function startConnect(c: Context<SignInEnv>): Promise<Response> {
  const form = await readForm(c.req.raw);
  await checkCsrf(c.req.raw, form);
  const session = await c.var.services.signIn.session(c.req.raw);
  if (!session) throw new AppError("forbidden", "Sign in to mcp-edge first: open the connect link again");
  const sourceId = sourceIdOf(form.get("source_id"));
  const source = await connections(c).source(session.user.id, sourceId);
  const flow = await connections(c).startConfirmed(session.user.id, source, form.get("return_to") === "console" ? "console" : "page");
  return sendToAuthorization(c, new URL(flow.startUrl).searchParams.get("flow") ?? "", session.user.id, 303);
}

async function start(c: Context<SignInEnv>): Promise<Response> {
  const signed = await browserUser(c);
  if ("response" in signed) return signed.response;
  return sendToAuthorization(c, c.req.query("flow") ?? "", signed.userId);
}

function connectedPage(name: string, detail: string): Response {
  return page({
    title: "Connected",
    headers: new Headers(NO_STORE),
    body: `<p>Source <strong>${escapeHtml(name)}</strong> is connected to your account. ${escapeHtml(detail)}</p><p>You can close this page and call its tools again.</p>`,
  });
}

async function completeConnect(c: Context<SignInEnv>): Promise<Response> {
  const error = c.req.query("error");
  const state = c.req.query("state") ?? "";
  const code = c.req.query("code");
  const cookie = await flowCookieName(state);
  // Whatever comes back, this browser's binding of this flow is spent (the flow is single use);
  // the bindings of its other flows stay.
  const clear = (headers: Headers) => {
    if (cookie) headers.append("Set-Cookie", clearCookie(cookie));
  };
  if (error !== undefined || code === undefined) {
    // The server's own words (error_description) are not shown: only an OAuth error code, in our words.
    const response = errorPage(callbackErrorText(error));
    clear(response.headers);
    return response;
  }
  const session = await c.var.services.signIn.session(c.req.raw);
  const done = await connections(c).complete({
    state,
    code,
    iss: c.req.query("iss"),
    path: new URL(c.req.url).pathname,
    browserSecret: cookie ? readCookie(c.req.raw, cookie) : undefined,
    browserUserId: session?.user.id,
  });
  // Now the tools can be listed: discover them with the new token.
  const detail = await c.var.services.sources.refresh(done.userId, done.sourceId);
  const headers = new Headers(NO_STORE);
  clear(headers);
  if (done.returnTo === "console") {
    // The console opens on its sources panel, where the source now shows its health.
    headers.set("Location", "/#sources");
    return new Response(null, { status: 303, headers });
  }
  const found = detail.source.last_discovery_error
    ? `Discovery: ${detail.source.last_discovery_error}`
    : `${detail.tools.length} tools discovered.`;
  const response = connectedPage(detail.source.name, found);
  clear(response.headers);
  return response;
}

/** GET /oauth/gateway-client.json: mcp-edge's Client ID Metadata Document (public). */
export function gatewayClient(c: Context<SignInEnv>): Response {
  const document = gatewayClientDocument(gatewayClientUrls(issuer(c.req.raw, c.env), c.env));
  return c.json(document, 200, { "Cache-Control": "public, max-age=3600" });
}
/** GET /oauth/upstream/connect: the connect link's page. */
export const connectPage = guarded(confirmConnect);
/** POST /oauth/upstream/connect: its form. */
export const connectForm = guarded(startConnect);
/** GET /oauth/upstream/start: the one-time start link. */
export const startLink = guarded(start);
/** GET /oauth/upstream/callback[/<issuer tag>]. */
export const callback = guarded(completeConnect);

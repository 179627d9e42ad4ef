/**
 * Signing in at the OpenID provider to come back to one of this Worker's own pages — a connect
 * link (`/oauth/upstream/connect?…`, `/oauth/upstream/start?…`) — rather than to an app's
 * authorization request. No app is waiting for a code, so there is no consent to ask first: the
 * page returned to asks for its own confirmation (the connect page's Continue). The rest is as for
 * an app (oidc-sign-in.ts): PKCE, a nonce, a `state` bound to this browser by a `__Host-` cookie of
 * its own and usable once, within ten minutes.
 *
 * The state is kept in OAUTH_KV under `mcpe-oidc-return:<SHA-256 of state>`, encrypted with a key
 * derived from `state` itself (as the library keeps its transactions), so only the holder of the
 * state can read the PKCE verifier, the nonce and where to return.
 */
import * as z from "zod";
import { AppError } from "../../lib/errors";
import { base64url, decodeBase64, sha256Hex } from "../../lib/encoding";
import { newSignInSecrets, type OpenIdProvider, type SignInSecrets } from "../oidc/oidc-client";
import { randomSecret } from "../tokens";
import { clearCookie, readCookie, safeReturnTo, setCookie } from "./browser";

const KEY_PREFIX = "mcpe-oidc-return:";
const COOKIE_PREFIX = "__Host-mcpe-oidc-return-";
const TTL_SECONDS = 10 * 60;

const SavedReturn = z.object({ verifier: z.string().min(43), nonce: z.string().min(1), returnTo: z.string() });

async function sealingKey(state: string): Promise<CryptoKey> {
  const material = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`mcp-edge oidc return:${state}`));
  return crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"]);
}

async function seal(state: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(value));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await sealingKey(state), plain);
  return `${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

async function open(state: string, stored: string): Promise<unknown> {
  const [iv, sealed] = stored.split(".");
  if (!iv || !sealed) return undefined;
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: decodeBase64(iv) }, await sealingKey(state), decodeBase64(sealed));
    return JSON.parse(new TextDecoder().decode(plain));
  } catch {
    return undefined;
  }
}

function cookieName(stateHash: string): string {
  return COOKIE_PREFIX + stateHash.slice(0, 16);
}

/** Sends the browser to the provider; its callback signs this browser in and returns to `returnTo`. */
export async function beginReturnSignIn(
  env: Pick<Env, "OAUTH_KV">,
  provider: OpenIdProvider,
  callbackUri: string,
  returnTo: string,
): Promise<Response> {
  const secrets = newSignInSecrets();
  const state = randomSecret();
  const hash = await sha256Hex(state);
  const url = await provider.authorizationUrl({ redirectUri: callbackUri, state, secrets });
  await env.OAUTH_KV.put(`${KEY_PREFIX}${hash}`, await seal(state, { ...secrets, returnTo }), { expirationTtl: TTL_SECONDS });
  const headers = new Headers({ Location: url.href, "Cache-Control": "no-store" });
  // Lax, not Strict: the provider's redirect back is a cross-site top-level navigation.
  headers.append("Set-Cookie", setCookie(cookieName(hash), hash, TTL_SECONDS));
  return new Response(null, { status: 303, headers });
}

export interface ResumedReturn {
  secrets: SignInSecrets;
  returnTo: string;
  /** Clears this sign-in's binding cookie. */
  headers: Headers;
}

/**
 * The sign-in of the callback's `state`, when it is one of these (undefined otherwise: an app's
 * sign-in, the library's). Taken once; refused unless this browser holds its binding cookie.
 */
export async function finishReturnSignIn(env: Pick<Env, "OAUTH_KV">, request: Request): Promise<ResumedReturn | undefined> {
  const state = new URL(request.url).searchParams.get("state");
  if (!state || state.length > 128) return undefined;
  const hash = await sha256Hex(state);
  const key = `${KEY_PREFIX}${hash}`;
  const stored = await env.OAUTH_KV.get(key);
  if (stored === null) return undefined;
  if (readCookie(request, cookieName(hash)) !== hash) {
    throw new AppError("forbidden", "This sign-in was not started in this browser; open the link again here");
  }
  await env.OAUTH_KV.delete(key);
  const saved = SavedReturn.safeParse(await open(state, stored));
  const returnTo = saved.success ? safeReturnTo(saved.data.returnTo) : undefined;
  if (!saved.success || !returnTo) throw new AppError("invalid_input", "This sign-in has no saved state; open the link again");
  const headers = new Headers({ "Cache-Control": "no-store" });
  headers.append("Set-Cookie", clearCookie(cookieName(hash)));
  return { secrets: { verifier: saved.data.verifier, nonce: saved.data.nonce }, returnTo, headers };
}

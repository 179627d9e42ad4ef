/**
 * The browser side of sign-in: `__Host-` cookies (Secure, host-only, Path=/, HttpOnly), the
 * session cookie (a random id; D1 keeps only its SHA-256: sign-in.service.ts), the CSRF token of
 * our own forms (a cookie and a form field that must match, plus a same-origin check) and the
 * authorization in progress, so a sign-in link opened in the same browser can return to it.
 */
import { AppError } from "../../lib/errors";
import { sha256Hex } from "../../lib/encoding";
import { randomSecret } from "../tokens";

export const SESSION_COOKIE = "__Host-mcpe-session";
/** Followed by 16 hex digits of the token's SHA-256: one cookie per CSRF token (see csrfToken). */
export const CSRF_COOKIE_PREFIX = "__Host-mcpe-csrf-";
export const PENDING_COOKIE = "__Host-mcpe-pending";

/** A sign-in lasts a working day; it only lets the user authorize clients, nothing else. */
export const SESSION_SECONDS = 8 * 60 * 60;
const CSRF_SECONDS = 60 * 60;
const PENDING_SECONDS = 15 * 60;

export function setCookie(name: string, value: string, maxAgeSeconds: number, sameSite: "Lax" | "Strict" = "Lax"): string {
  return `${name}=${encodeURIComponent(value)}; Path=/; Secure; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAgeSeconds}`;
}

export function clearCookie(name: string): string {
  return `${name}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}

function cookies(request: Request): [string, string][] {
  const found: [string, string][] = [];
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (!key) continue;
    try {
      found.push([key, decodeURIComponent(rest.join("="))]);
    } catch {
      // a value that is not URI-encoded is none of ours
    }
  }
  return found;
}

export function readCookie(request: Request, name: string): string | undefined {
  return cookies(request).find(([key]) => key === name)?.[1];
}

const CSRF_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

async function csrfCookieName(token: string): Promise<string> {
  return CSRF_COOKIE_PREFIX + (await sha256Hex(`csrf cookie:${token}`)).slice(0, 16);
}

/**
 * The CSRF token for a form of ours, and the cookie to set with the page. Each token has a cookie of
 * its own, named by the token's hash: a browser that opens several sign-in pages at once with no
 * token yet (two tabs an app opened together) gets one per page, and each page's form stays valid —
 * one shared cookie was overwritten by the second page, and the first form was refused as expired.
 * A browser that already holds a token reuses it, so it keeps one such cookie in the usual case;
 * the cookie is set again with each page, which extends its life.
 */
export async function csrfToken(request: Request): Promise<{ token: string; cookie: string }> {
  for (const [name, value] of cookies(request)) {
    if (name.startsWith(CSRF_COOKIE_PREFIX) && CSRF_TOKEN_SHAPE.test(value) && name === (await csrfCookieName(value))) {
      return { token: value, cookie: setCookie(name, value, CSRF_SECONDS, "Strict") };
    }
  }
  const token = randomSecret();
  return { token, cookie: setCookie(await csrfCookieName(token), token, CSRF_SECONDS, "Strict") };
}

function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Refuses a form post another site made: the Origin, when the browser sends one, must be ours,
 * and the posted `csrf` field must equal the CSRF cookie its hash names (which another site can
 * neither read nor set: it is `__Host-`, HttpOnly and SameSite=Strict).
 */
export async function checkCsrf(request: Request, form: FormData): Promise<void> {
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(request.url).origin) throw new AppError("forbidden", "This form was posted from another site");
  const field = form.get("csrf");
  const cookie = typeof field === "string" && CSRF_TOKEN_SHAPE.test(field) ? readCookie(request, await csrfCookieName(field)) : undefined;
  if (!cookie || typeof field !== "string" || !equalInConstantTime(cookie, field)) {
    throw new AppError("forbidden", "This form has expired or was not opened in this browser; start again from the app");
  }
}

/**
 * Where a sign-in may return, on this origin only (never an open redirect): an authorization in
 * progress, or connecting a source's upstream account (its start and connect links).
 */
const RETURN_PREFIXES = ["/authorize?", "/oauth/upstream/start?", "/oauth/upstream/connect?"];

export function safeReturnTo(value: unknown): string | undefined {
  return typeof value === "string" && RETURN_PREFIXES.some((prefix) => value.startsWith(prefix)) && !value.includes("\\")
    ? value
    : undefined;
}

export function pendingCookie(returnTo: string): string {
  return setCookie(PENDING_COOKIE, returnTo, PENDING_SECONDS);
}

/**
 * API tokens: `mcpe_` + 32 random bytes (base64url). Only the SHA-256 hex digest is stored;
 * the tokens are high-entropy, so a fast hash is enough (no password-style stretching).
 * Shared by the Worker and by `npm run token`, so both hash the same way.
 */
import { base64url, sha256Hex } from "../lib/encoding";

export const TOKEN_PREFIX = "mcpe_";

export function generateToken(): string {
  return TOKEN_PREFIX + randomSecret();
}

/** 32 random bytes, base64url: API tokens, session ids, sign-in codes, CSRF tokens. */
export function randomSecret(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export function hashToken(token: string): Promise<string> {
  return sha256Hex(token);
}

/** User names are identifiers typed on a command line: keep them plain. */
export const USER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/** One-time sign-in codes (`npm run token -- login-link`) are single use and live ten minutes. */
export const LOGIN_CODE_SECONDS = 10 * 60;

/**
 * The user name a person signing in through OpenID Connect gets the first time: taken from the
 * provider's claims (preferred_username, nickname, e-mail, name — the first that leaves something
 * usable) and cleaned to what `USER_NAME_PATTERN` allows, the names people type in
 * `npm run token -- login-link --user NAME`. Accents are dropped ("José" → "Jose"), every run of
 * other characters becomes one "-". The name is only a label: the account is found by (issuer,
 * subject), never by name, so a name already taken gets a numbered suffix instead.
 */
import { USER_NAME_PATTERN } from "../tokens";
import type { OidcIdentity } from "./oidc-client";

/** Leaves room for a "-NN" suffix within the pattern's 64 characters. */
const MAX_BASE_LENGTH = 56;
const FALLBACK = "user";

export function cleanUserName(value: string): string | undefined {
  const cleaned = value
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[^A-Za-z0-9_.@-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, MAX_BASE_LENGTH)
    .replace(/[-_.@]+$/, "");
  return USER_NAME_PATTERN.test(cleaned) ? cleaned : undefined;
}

export function baseUserName(claims: OidcIdentity["claims"]): string {
  for (const candidate of [claims.preferred_username, claims.nickname, claims.email, claims.name]) {
    const cleaned = candidate === undefined ? undefined : cleanUserName(candidate);
    if (cleaned) return cleaned;
  }
  return FALLBACK;
}

/** The names to try in order: the base, then base-2, base-3, …; finally a random suffix. */
export function* userNameCandidates(base: string, numbered = 20): Generator<string> {
  yield base;
  for (let n = 2; n <= numbered + 1; n++) yield `${base}-${n}`;
  yield `${base}-${crypto.randomUUID().slice(0, 8)}`;
}

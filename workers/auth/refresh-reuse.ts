/**
 * Refresh-token reuse detection (OAuth 2.1 §4.3.1, the security BCP): the library rotates refresh
 * tokens and keeps the one previous token usable until its successor is used (a client that lost
 * a response may retry). A token older than that is refused by the library; when the refused
 * token is one this server really issued for the grant, someone is replaying a rotated token, so
 * the whole grant is revoked — the thief and the client both sign in again.
 *
 * To tell a replayed token from a forged one (the `<user>:<grant>:` prefix is not secret: every
 * access token of the grant carries it), the SHA-256 of every refresh token issued for a grant is
 * kept in OAUTH_KV under `mcpe-refresh-issued:<user>:<grant>` (the newest 100, as long as the grant lives).
 */
import { isJsonObject } from "../lib/json";
import { log } from "../lib/log";
import { oauthHelpers, REFRESH_TOKEN_TTL_SECONDS } from "./authorization-server";
import { hashToken } from "./tokens";

const KEY_PREFIX = "mcpe-refresh-issued:";
const MAX_REMEMBERED = 100;

function grantOf(token: string): { userId: string; grantId: string } | undefined {
  const [userId, grantId, secret, ...rest] = token.split(":");
  return userId && grantId && secret && rest.length === 0 ? { userId, grantId } : undefined;
}

async function issued(kv: KVNamespace, key: string): Promise<string[]> {
  const value: unknown = await kv.get(key, "json");
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
}

/** After a successful token response: remember the refresh token it issued. */
export async function rememberIssuedRefreshToken(env: Env, response: Response): Promise<void> {
  if (response.status !== 200) return;
  const body: unknown = await response.clone().json().catch(() => undefined);
  const token = isJsonObject(body) ? body["refresh_token"] : undefined;
  const grant = typeof token === "string" ? grantOf(token) : undefined;
  if (typeof token !== "string" || !grant) return;
  const key = `${KEY_PREFIX}${grant.userId}:${grant.grantId}`;
  const hashes = [...(await issued(env.OAUTH_KV, key)), await hashToken(token)].slice(-MAX_REMEMBERED);
  await env.OAUTH_KV.put(key, JSON.stringify(hashes), { expirationTtl: REFRESH_TOKEN_TTL_SECONDS });
}

/**
 * After the library refused a refresh token with `invalid_grant`: if this server issued it for
 * the grant, it was rotated away and is being replayed — revoke the grant with all its tokens.
 */
export async function revokeOnReplay(env: Env, issuer: string, presented: string): Promise<boolean> {
  const grant = grantOf(presented);
  if (!grant) return false;
  const key = `${KEY_PREFIX}${grant.userId}:${grant.grantId}`;
  if (!(await issued(env.OAUTH_KV, key)).includes(await hashToken(presented))) return false;
  await oauthHelpers(issuer, env).revokeGrant(grant.grantId, grant.userId);
  await env.OAUTH_KV.delete(key);
  log.warn("refresh token replayed: grant revoked", { user: grant.userId, grant: grant.grantId });
  return true;
}

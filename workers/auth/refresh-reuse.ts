/**
 * Refresh-token reuse detection (OAuth 2.1 §4.3.1, the security BCP). The library rotates refresh
 * tokens: each refresh answers a new token, and the one presented becomes the grant's "previous"
 * token, still usable (a client that lost a response may retry); every other token of the grant is
 * refused. Two refreshes of the same token — a race, or a retry after a lost response — each get a
 * new token, and the one answered first is then refused too, though nobody stole anything.
 *
 * So a refused token revokes the whole grant only when it is a real replay: this server issued it
 * for the grant, it is older than the grant's previous token (issued before it: rotated away twice
 * at least), and the request comes from the grant's own client. A token issued after the previous
 * one (the loser of a race), or any token presented by another client, is refused and nothing else.
 *
 * Kept in OAUTH_KV under `mcpe-refresh-issued:<user>:<grant>`, as long as the grant lives: the
 * SHA-256 of the newest 100 refresh tokens issued for the grant, oldest first (the value), and in the
 * key's metadata the SHA-256 of the grant's client id and of the token the last refresh was made
 * with (the grant's previous token). A record written before the metadata existed revokes nothing;
 * the grant's next refresh completes it.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { isJsonObject } from "../lib/json";
import { log } from "../lib/log";
import { REFRESH_TOKEN_TTL_SECONDS } from "./authorization-server";
import { hashToken } from "./tokens";

const KEY_PREFIX = "mcpe-refresh-issued:";
const MAX_REMEMBERED = 100;

interface IssuedRecord {
  /** Oldest first. */
  issued: string[];
  /** SHA-256 of the grant's client id. */
  client: string | undefined;
  /** SHA-256 of the token the last refresh was made with: the library's previous token. */
  previous: string | undefined;
}

function grantOf(token: string): { userId: string; grantId: string } | undefined {
  const [userId, grantId, secret, ...rest] = token.split(":");
  return userId && grantId && secret && rest.length === 0 ? { userId, grantId } : undefined;
}

function keyOf(grant: { userId: string; grantId: string }): string {
  return `${KEY_PREFIX}${grant.userId}:${grant.grantId}`;
}

async function readRecord(kv: KVNamespace, key: string): Promise<IssuedRecord> {
  const { value, metadata } = await kv.getWithMetadata<unknown, unknown>(key, "json");
  const issued = Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
  const client = isJsonObject(metadata) && typeof metadata["client"] === "string" ? metadata["client"] : undefined;
  const previous = isJsonObject(metadata) && typeof metadata["previous"] === "string" ? metadata["previous"] : undefined;
  return { issued, client, previous };
}

/** The token request a successful token response answered: its client, and the refresh token it presented. */
export interface TokenRequestFacts {
  clientId: string | undefined;
  presentedRefreshToken: string | null;
}

/** After a successful token response: remember the refresh token it issued, its client and the token it replaced. */
export async function rememberIssuedRefreshToken(env: Env, response: Response, request: TokenRequestFacts): Promise<void> {
  if (response.status !== 200) return;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  const token = isJsonObject(body) ? body["refresh_token"] : undefined;
  const grant = typeof token === "string" ? grantOf(token) : undefined;
  if (typeof token !== "string" || !grant) return;
  const key = keyOf(grant);
  const record = await readRecord(env.OAUTH_KV, key);
  const issued = [...record.issued, await hashToken(token)].slice(-MAX_REMEMBERED);
  const metadata = {
    // The library answered 200: the client that asked is the grant's.
    client: request.clientId === undefined ? record.client : await hashToken(request.clientId),
    previous: request.presentedRefreshToken === null ? undefined : await hashToken(request.presentedRefreshToken),
  };
  await env.OAUTH_KV.put(key, JSON.stringify(issued), { expirationTtl: REFRESH_TOKEN_TTL_SECONDS, metadata });
}

/** A grant ended on purpose (replaced by a newer one): its tokens are then unknown here, never a replay. */
export async function forgetIssuedRefreshTokens(env: Env, userId: string, grantId: string): Promise<void> {
  await env.OAUTH_KV.delete(keyOf({ userId, grantId }));
}

/**
 * After the library refused a refresh token with `invalid_grant`: revoke the grant (and all its
 * tokens) when the refusal is a replay as described above. Returns whether it did.
 */
export async function revokeOnReplay(oauth: OAuthHelpers, env: Env, presented: string, clientId: string | undefined): Promise<boolean> {
  const grant = grantOf(presented);
  if (!grant) return false;
  const key = keyOf(grant);
  const record = await readRecord(env.OAUTH_KV, key);
  const index = record.issued.indexOf(await hashToken(presented));
  // Not ours (a forged secret behind a real grant's prefix), or a record that cannot tell.
  if (index < 0 || record.client === undefined || record.previous === undefined) return false;
  if (clientId === undefined || (await hashToken(clientId)) !== record.client) {
    log.info("refresh token refused: presented by another client; grant kept", { user: grant.userId, grant: grant.grantId });
    return false;
  }
  if (index >= record.issued.indexOf(record.previous)) {
    const fields = { user: grant.userId, grant: grant.grantId };
    log.info("refresh token refused: superseded by another refresh of the same token; grant kept", fields);
    return false;
  }
  await oauth.revokeGrant(grant.grantId, grant.userId);
  await env.OAUTH_KV.delete(key);
  log.warn("refresh token replayed: grant revoked", { user: grant.userId, grant: grant.grantId });
  return true;
}

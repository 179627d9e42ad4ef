/**
 * A new authorization replaces the client's earlier one only once it is used. The library's
 * `completeAuthorization` revokes, when the code is issued, every grant of the same user, client
 * (and redirect URI, for a metadata-document client, whose client_id all its installations share)
 * and resource. A step-up that was never finished — Allow pressed, the code never exchanged (tab
 * closed, app crashed) — then left the client without even the access it had. So the code is issued
 * with `revokeExistingGrants: false`; the grants the library would have revoked, matched by its
 * rule at that moment, are written down beside the new grant, and revoked when its code is
 * exchanged (the token endpoint, after the library answered 200). A code never exchanged ends
 * nothing: its record expires with it.
 *
 * Kept in OAUTH_KV under `mcpe-grant-replaces:<user>:<new grant>`: the ids of the grants to end,
 * for as long as the code lives (10 minutes, the library's code lifetime).
 */
import type { AuthRequest, CompleteAuthorizationOptions, GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { isJsonObject } from "../lib/json";
import { log } from "../lib/log";
import { isClientIdUrl } from "./client-id-guard";
import { forgetIssuedRefreshTokens } from "./refresh-reuse";

const KEY_PREFIX = "mcpe-grant-replaces:";
/** The library's lifetime of an unexchanged code (its grant's first expiry). */
const CODE_SECONDS = 10 * 60;
/** A user has a grant per client, resource and pending sign-in: pages of 1,000 are read until the end. */
const PAGE_SIZE = 1000;

function keyOf(userId: string, grantId: string): string {
  return `${KEY_PREFIX}${userId}:${grantId}`;
}

function resourceCovers(granted: GrantSummary["resource"], resource: string): boolean {
  return Array.isArray(granted) ? granted.includes(resource) : granted === resource;
}

/** The library's rule for the grants a new authorization of `request` replaces. */
function isReplacedBy(grant: GrantSummary, request: AuthRequest, resource: string): boolean {
  if (grant.clientId !== request.clientId) return false;
  if (isClientIdUrl(request.clientId) && grant.redirectUri !== request.redirectUri) return false;
  return resourceCovers(grant.resource, resource);
}

async function replacedGrants(oauth: OAuthHelpers, userId: string, request: AuthRequest, resource: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(userId, { limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) });
    ids.push(...page.items.filter((grant) => isReplacedBy(grant, request, resource)).map((grant) => grant.id));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return ids;
}

/** The user and grant of a code or token (`<user>:<grant>:<secret>`). */
function grantOf(token: string): { userId: string; grantId: string } | undefined {
  const [userId, grantId, secret, ...rest] = token.split(":");
  return userId && grantId && secret && rest.length === 0 ? { userId, grantId } : undefined;
}

/**
 * Issues the code as `completeAuthorization` does, without ending any grant, and writes down the
 * grants its exchange will end. `resource` is the canonical resource the grant is for.
 */
export async function issueCode(
  oauth: OAuthHelpers,
  kv: KVNamespace,
  options: CompleteAuthorizationOptions,
  resource: string,
): Promise<{ redirectTo: string }> {
  const replaced = await replacedGrants(oauth, options.userId, options.request, resource);
  const answer = await oauth.completeAuthorization({ ...options, revokeExistingGrants: false });
  const grant = grantOf(new URL(answer.redirectTo).searchParams.get("code") ?? "");
  if (grant && replaced.length > 0) {
    await kv.put(keyOf(grant.userId, grant.grantId), JSON.stringify(replaced), { expirationTtl: CODE_SECONDS });
  }
  return answer;
}

/** After the library answered an authorization_code exchange with 200: end the grants its code replaces. */
export async function endReplacedGrants(oauth: OAuthHelpers, env: Env, response: Response): Promise<void> {
  if (response.status !== 200) return;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  const token = isJsonObject(body) ? body["access_token"] : undefined;
  const grant = typeof token === "string" ? grantOf(token) : undefined;
  if (!grant) return;
  const key = keyOf(grant.userId, grant.grantId);
  const replaced: unknown = await env.OAUTH_KV.get(key, "json");
  if (!Array.isArray(replaced)) return;
  for (const id of replaced) {
    if (typeof id !== "string" || id === grant.grantId) continue;
    await oauth.revokeGrant(id, grant.userId);
    // Its refresh tokens are refused from now on as unknown: no reuse verdict (refresh-reuse.ts) is made on them.
    await forgetIssuedRefreshTokens(env, grant.userId, id);
  }
  await env.OAUTH_KV.delete(key);
  log.info("grant replaced on first use", { user: grant.userId, grant: grant.grantId, ended: replaced.length });
}

/** Test users with real tokens, created through the same hashing the Worker verifies with. */
import { env } from "cloudflare:test";
import { generateToken, hashToken } from "../../workers/auth/tokens";

export interface TestUser {
  id: number;
  name: string;
  token: string;
  headers: Record<string, string>;
}

export async function createUser(name = `user-${crypto.randomUUID().slice(0, 8)}`): Promise<TestUser> {
  const token = generateToken();
  const user = await env.DB.prepare("INSERT INTO users (name) VALUES (?) RETURNING id").bind(name).first<{ id: number }>();
  await env.DB.prepare("INSERT INTO api_tokens (user_id, token_hash, label) VALUES (?, ?, 'test')")
    .bind(user!.id, await hashToken(token))
    .run();
  return { id: user!.id, name, token, headers: { authorization: `Bearer ${token}` } };
}

/** Another API token of the same user, granting only `scopes` (the `--scope` flags of `npm run token`). */
export async function withScopedToken(user: TestUser, scopes: string[]): Promise<TestUser> {
  const token = generateToken();
  await env.DB.prepare("INSERT INTO api_tokens (user_id, token_hash, label, scopes) VALUES (?, ?, 'scoped', ?)")
    .bind(user.id, await hashToken(token), JSON.stringify(scopes))
    .run();
  return { ...user, token, headers: { authorization: `Bearer ${token}` } };
}

/** A one-time sign-in code for `user`, as `npm run token -- login-link` stores it (hashed). */
export async function createLoginCode(user: TestUser, expiresAt = new Date(Date.now() + 10 * 60_000)): Promise<string> {
  const code = generateToken().slice("mcpe_".length);
  await env.DB.prepare("INSERT INTO login_links (code_hash, user_id, expires_at) VALUES (?, ?, ?)")
    .bind(await hashToken(code), user.id, expiresAt.toISOString())
    .run();
  return code;
}

/** Creates a user (if new) and an API token for them, in the local or the production D1. */
import { generateToken, hashToken, randomSecret, USER_NAME_PATTERN } from "../../workers/auth/tokens";
import { applyMigrations, executeSql, sqlString } from "./wrangler";

function checkUserName(user: string): void {
  if (!USER_NAME_PATTERN.test(user)) {
    throw new Error(`--user "${user}": use 1–64 letters, digits, '_', '.', '@' or '-', starting with a letter or digit`);
  }
}

/** `scopes` null = a token with every scope. */
export async function createToken(
  user: string,
  label: string,
  scopes: readonly string[] | null,
  target: "--local" | "--remote",
): Promise<string> {
  checkUserName(user);
  if (target === "--local") applyMigrations("--local");
  const token = generateToken();
  const hash = await hashToken(token);
  const scopesSql = scopes === null ? "NULL" : sqlString(JSON.stringify(scopes));
  executeSql(
    `INSERT INTO users (name) VALUES (${sqlString(user)}) ON CONFLICT(name) DO NOTHING;
     INSERT INTO api_tokens (user_id, token_hash, label, scopes) SELECT id, ${sqlString(hash)}, ${sqlString(label)}, ${scopesSql} FROM users WHERE name = ${sqlString(user)};`,
    target,
  );
  return token;
}

/**
 * A one-time sign-in code for /authorize (single use, expires after `seconds`); only its SHA-256
 * is stored. The user is created if new, as `create` does.
 */
export async function createLoginCode(user: string, seconds: number, target: "--local" | "--remote"): Promise<string> {
  checkUserName(user);
  if (target === "--local") applyMigrations("--local");
  const code = randomSecret();
  const expiresAt = new Date(Date.now() + seconds * 1000).toISOString();
  executeSql(
    `INSERT INTO users (name) VALUES (${sqlString(user)}) ON CONFLICT(name) DO NOTHING;
     INSERT INTO login_links (code_hash, user_id, expires_at) SELECT ${sqlString(await hashToken(code))}, id, ${sqlString(expiresAt)} FROM users WHERE name = ${sqlString(user)};`,
    target,
  );
  return code;
}

export async function tokenIsValid(token: string, target: "--local" | "--remote"): Promise<boolean> {
  const hash = await hashToken(token);
  const out = executeSql(`SELECT count(*) AS n FROM api_tokens WHERE token_hash = ${sqlString(hash)} AND revoked_at IS NULL;`, target);
  const parsed = JSON.parse(out) as { results: { n: number }[] }[];
  return (parsed[0]?.results[0]?.n ?? 0) > 0;
}

export function revokeTokens(user: string, target: "--local" | "--remote"): void {
  if (!USER_NAME_PATTERN.test(user)) throw new Error(`--user "${user}" is not a valid user name`);
  executeSql(
    `UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
     WHERE revoked_at IS NULL AND user_id = (SELECT id FROM users WHERE name = ${sqlString(user)});`,
    target,
  );
}

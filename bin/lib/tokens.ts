/** Creates a user (if new) and an API token for them, in the local or the production D1. */
import { generateToken, hashToken, USER_NAME_PATTERN } from "../../workers/auth/tokens";
import { applyMigrations, executeSql, sqlString } from "./wrangler";

export async function createToken(user: string, label: string, target: "--local" | "--remote"): Promise<string> {
  if (!USER_NAME_PATTERN.test(user)) {
    throw new Error(`--user "${user}": use 1–64 letters, digits, '_', '.', '@' or '-', starting with a letter or digit`);
  }
  if (target === "--local") applyMigrations("--local");
  const token = generateToken();
  const hash = await hashToken(token);
  executeSql(
    `INSERT INTO users (name) VALUES (${sqlString(user)}) ON CONFLICT(name) DO NOTHING;
     INSERT INTO api_tokens (user_id, token_hash, label) SELECT id, ${sqlString(hash)}, ${sqlString(label)} FROM users WHERE name = ${sqlString(user)};`,
    target,
  );
  return token;
}

export async function tokenIsValid(token: string, target: "--local" | "--remote"): Promise<boolean> {
  const hash = await hashToken(token);
  const out = executeSql(
    `SELECT count(*) AS n FROM api_tokens WHERE token_hash = ${sqlString(hash)} AND revoked_at IS NULL;`,
    target,
  );
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

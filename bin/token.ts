/**
 * npm run token -- create --user <name> [--label <text>] [--scope <scope> …] [--remote]
 * npm run token -- revoke --user <name> [--remote]
 * npm run token -- login-link --user <name> [--origin <url>] [--remote]
 *
 * `create` makes the user if needed and prints a new API token on its last line; `--scope`
 * (repeatable) limits what it grants, default every scope. Only the token's SHA-256 is stored.
 * `login-link` prints a one-time sign-in link for the /authorize page (single use, ten minutes);
 * its code can also be pasted there. Locally the link names http://localhost:$PORT (8787 by default). `--remote` targets the production D1 database.
 */
import { parseArgs } from "node:util";
import { parseScopeFlags, SCOPES } from "../workers/auth/scopes";
import { LOGIN_CODE_SECONDS } from "../workers/auth/tokens";
import { devOrigin } from "./lib/dev-origin";
import { createLoginCode, createToken, revokeTokens } from "./lib/tokens";

const USAGE = `usage: npm run token -- create --user <name> [--label <text>] [--scope <scope> …] [--remote]
       npm run token -- revoke --user <name> [--remote]
       npm run token -- login-link --user <name> [--origin <url>] [--remote]
scopes: ${SCOPES.join(", ")} (default: all)`;

const COMMANDS = new Set(["create", "revoke", "login-link"]);

function originOf(value: string | undefined, remote: boolean): string {
  if (value === undefined && remote)
    throw new Error("--origin <https://your-worker> is needed with --remote: the link must open your deployed Worker");
  // Without --origin: the local server, on the PORT `npm run dev` was started with.
  const raw = value ?? devOrigin();
  const url = new URL(raw);
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`--origin ${raw}: expected an http(s) URL`);
  return url.origin;
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      user: { type: "string" },
      label: { type: "string" },
      scope: { type: "string", multiple: true },
      origin: { type: "string" },
      remote: { type: "boolean", default: false },
    },
  });
  const command = positionals[0];
  const target = values.remote ? "--remote" : "--local";
  if (!values.user || !command || !COMMANDS.has(command)) throw new Error(USAGE);
  if (command === "revoke") {
    revokeTokens(values.user, target);
    console.log(`Revoked every token of ${values.user} (${target.slice(2)}); cached verifications expire within TOKEN_CACHE_SECONDS.`);
    return;
  }
  if (command === "login-link") {
    const origin = originOf(values.origin, values.remote);
    const code = await createLoginCode(values.user, LOGIN_CODE_SECONDS, target);
    console.log(
      `A sign-in link for ${values.user}: open it in the browser where the app asked you to sign in (once, within ${LOGIN_CODE_SECONDS / 60} minutes), or paste the code there:`,
    );
    console.log(`${origin}/authorize/link?code=${encodeURIComponent(code)}`);
    console.log(`code: ${code}`);
    return;
  }
  const scopes = parseScopeFlags(values.scope ?? []);
  const label = (values.label ?? "cli").slice(0, 100);
  const token = await createToken(values.user, label, scopes, target);
  console.log(
    `Created a token for ${values.user} (${target.slice(2)} database) with ${scopes ? `the scopes ${scopes.join(" ")}` : "every scope"}. It is shown once; store it now:`,
  );
  console.log(token);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});

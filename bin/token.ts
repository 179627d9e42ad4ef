/**
 * npm run token -- create --user <name> [--label <text>] [--remote]
 * npm run token -- revoke --user <name> [--remote]
 *
 * `create` makes the user if needed and prints a new API token on its last line. Only the
 * token's SHA-256 is stored. `--remote` targets the production D1 database.
 */
import { parseArgs } from "node:util";
import { createToken, revokeTokens } from "./lib/tokens";

const USAGE = "usage: npm run token -- create --user <name> [--label <text>] [--remote]\n       npm run token -- revoke --user <name> [--remote]";

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { user: { type: "string" }, label: { type: "string" }, remote: { type: "boolean", default: false } },
  });
  const command = positionals[0];
  const target = values.remote ? "--remote" : "--local";
  if (!values.user || (command !== "create" && command !== "revoke")) throw new Error(USAGE);
  if (command === "revoke") {
    revokeTokens(values.user, target);
    console.log(`Revoked every token of ${values.user} (${target.slice(2)}); cached verifications expire within TOKEN_CACHE_SECONDS.`);
    return;
  }
  const label = (values.label ?? "cli").slice(0, 100);
  const token = await createToken(values.user, label, target);
  console.log(`Created a token for ${values.user} (${target.slice(2)} database). It is shown once; store it now:`);
  console.log(token);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});

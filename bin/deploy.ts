/**
 * npm run deploy [-- --dry-run] [-- --origin https://mcp.example.com]
 *
 * The whole production deployment, the first time and every time after (bin/deploy/deployment.ts
 * says what it does; decision 0061 why). Sign in first with `npx wrangler login` (or set
 * CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID). `--origin` is the Worker's public origin when
 * it is served on a custom domain rather than its workers.dev URL. `--dry-run` needs no account:
 * it bundles both Workers (`wrangler deploy --dry-run`) and prints every other step as a plan.
 */
import { parseArgs } from "node:util";
import { deploy } from "./deploy/deployment";
import { consoleReport } from "./deploy/report";
import { projectWrangler } from "./deploy/wrangler-cli";
import { ROOT } from "./lib/wrangler";

const USAGE = "usage: npm run deploy [-- --dry-run] [-- --origin https://<public origin>]";

function parseOrigin(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = new URL(value);
  if (url.protocol !== "https:") throw new Error(`--origin ${value}: the public origin must be https`);
  return url.origin;
}

function main(): void {
  const { values } = parseArgs({
    options: { "dry-run": { type: "boolean", default: false }, origin: { type: "string" }, help: { type: "boolean" } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const dryRun = values["dry-run"];
  const report = consoleReport();
  console.log(dryRun ? "mcp-edge deployment plan (dry run: nothing is changed on Cloudflare)" : "mcp-edge deployment");
  deploy(ROOT, projectWrangler(ROOT), report, { dryRun, origin: parseOrigin(values.origin) });
  console.log(report.summary());
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

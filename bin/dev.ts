/**
 * npm run dev: migrate and seed the local D1, make sure the demo user has a token, then run both
 * Workers in one `wrangler dev` on http://localhost:8787 (or the PORT given) — the main Worker (wrangler.toml) and,
 * behind its AGENT binding, the chat agent's (workers/agent-worker/wrangler.toml) — with local D1, Queues
 * and Durable Objects and working service bindings between them.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { devPort } from "./lib/dev-origin";
import { seedRagCorpus } from "./lib/seed-rag";
import { createToken, tokenIsValid } from "./lib/tokens";
import { applyMigrations, ROOT, WRANGLER, wrangler } from "./lib/wrangler";

const PORT = devPort();
const TOKEN_FILE = join(ROOT, ".wrangler", "demo-token");
const SOURCE_KEY_FILE = join(ROOT, ".wrangler", "dev-source-secrets-key");

/** A local-only key for gateway source secrets, made once; production uses `wrangler secret put`. */
function devSourceSecretsKey(): string {
  if (existsSync(SOURCE_KEY_FILE)) return readFileSync(SOURCE_KEY_FILE, "utf8").trim();
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
  mkdirSync(join(ROOT, ".wrangler"), { recursive: true });
  writeFileSync(SOURCE_KEY_FILE, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Gateway settings for local dev only: loopback/http upstreams, the Worker's own origin, a dev key. */
function gatewayDevVars(): string[] {
  return [
    ["ALLOW_PRIVATE_UPSTREAMS", "1"],
    ["SELF_ORIGIN", `http://localhost:${PORT}`],
    ["SOURCE_SECRETS_KEY", devSourceSecretsKey()],
  ].flatMap(([name, value]) => ["--var", `${name}:${value}`]);
}

/**
 * The agent Worker's dev settings. `--var` reaches only the first config's Worker, so they go in
 * the agent's own workers/agent-worker/.dev.vars (git-ignored, read by wrangler dev for that Worker): its
 * MCP tools are the main Worker's gateway on this port. Any other line there (a model key, say) is kept.
 */
function writeAgentDevVars(): void {
  const file = join(ROOT, "workers", "agent-worker", ".dev.vars");
  const settings: Record<string, string> = { SELF_ORIGIN: `http://localhost:${PORT}`, MCP_URL: `http://localhost:${PORT}/mcp` };
  const kept = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "" && !Object.keys(settings).some((name) => line.startsWith(`${name}=`)))
    : [];
  writeFileSync(file, [...kept, ...Object.entries(settings).map(([name, value]) => `${name}=${value}`), ""].join("\n"), { mode: 0o600 });
}

async function demoToken(): Promise<string> {
  if (existsSync(TOKEN_FILE)) {
    const saved = readFileSync(TOKEN_FILE, "utf8").trim();
    if (saved && (await tokenIsValid(saved, "--local"))) return saved;
  }
  const token = await createToken("demo", "npm run dev", null, "--local");
  mkdirSync(join(ROOT, ".wrangler"), { recursive: true });
  writeFileSync(TOKEN_FILE, `${token}\n`, { mode: 0o600 });
  return token;
}

async function main(): Promise<void> {
  console.log("Applying D1 migrations to the local database…");
  applyMigrations("--local");
  wrangler(["d1", "execute", "DB", "--local", "--file", "d1/seed.sql"], { quiet: true });
  const token = await demoToken();
  console.log(`
mcp-edge local servers
  Console:      http://localhost:${PORT}/             (Sign in, then paste the demo token below on the sign-in page)
  MCP (all):    http://localhost:${PORT}/mcp         (gateway: built-in tools + your sources, POST /api/sources)
  MCP (tasks):  http://localhost:${PORT}/mcp/tasks
  MCP (rag):    http://localhost:${PORT}/mcp/rag     (demo corpus seeded from d1/seed-rag.jsonl)
  MCP (thinking): http://localhost:${PORT}/mcp/thinking
  REST API:     http://localhost:${PORT}/api/tasks   (OpenAPI: /openapi.json)
  Chat agent:   POST http://localhost:${PORT}/api/chat {"message":"…"}   (or: npx mcp-edge chat --url …/mcp --token …)
  Health:       http://localhost:${PORT}/health
  Demo token:   ${token}
  (saved in .wrangler/demo-token; more users: npm run token -- create --user <name>)
`);
  writeAgentDevVars();
  const configs = ["-c", "wrangler.toml", "-c", "workers/agent-worker/wrangler.toml"];
  const child = spawn(
    WRANGLER,
    ["dev", ...configs, "--port", PORT, "--ip", "127.0.0.1", "--test-scheduled", ...gatewayDevVars(), ...process.argv.slice(2)],
    {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    },
  );
  const stop = () => child.kill("SIGINT");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  child.on("exit", (code) => process.exit(code ?? 0));
  // The demo RAG corpus goes in through rag_ingest itself, once the Worker answers.
  seedRagCorpus(`http://127.0.0.1:${PORT}`, token).then(
    (documents) => console.log(`RAG demo corpus ready: ${documents} documents for the demo user (try rag_basic at /mcp/rag).`),
    (error: unknown) => console.error(`RAG demo corpus not seeded: ${error instanceof Error ? error.message : String(error)}`),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});

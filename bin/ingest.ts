/**
 * npm run ingest -- <file.jsonl> [--user demo] [--url URL --token TOKEN]
 *
 * Ingests a BEIR-format corpus (one JSON object a line: _id, title, text, metadata) through the
 * rag_ingest tool. With --url (or MCP_URL) it talks to that server; otherwise it starts a local
 * Worker on the same local D1 as `npm run dev` (stop `npm run dev` first) for --user (default demo).
 * Re-running is cheap: unchanged documents are skipped by content hash.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ingestBeirFile } from "./lib/beir-ingest";
import { LOG_DIR, startLocalWorker } from "./lib/local-worker";
import { bearer, closeMcp, connectMcp } from "../workers/mcp-client/connect";

const USAGE = "usage: npm run ingest -- <file.jsonl> [--user <name>] [--url <mcp url> --token <token>]";

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { user: { type: "string", default: "demo" }, url: { type: "string" }, token: { type: "string" } },
  });
  const file = positionals[0];
  if (!file) throw new Error(USAGE);
  if (!existsSync(file)) throw new Error(`${file}: no such file`);
  const url = values.url ?? process.env["MCP_URL"];
  const worker = url
    ? undefined
    : await startLocalWorker({ user: values.user!, label: "npm run ingest", logFile: join(LOG_DIR, "ingest.log") });
  try {
    const target = worker
      ? { url: `${worker.origin}/mcp/rag`, token: worker.token }
      : { url: url!, token: values.token ?? process.env["MCP_TOKEN"] };
    const connection = await connectMcp(
      { url: target.url, headers: bearer(target.token) },
      { clientName: "mcp-edge-cli", timeoutMs: 30_000, negotiation: "auto" },
    );
    const started = Date.now();
    const summary = await ingestBeirFile(connection.client, file, (s) => process.stderr.write(`\r${s.sent} documents sent…`));
    await closeMcp(connection);
    process.stderr.write("\n");
    console.log(
      `Ingested ${summary.sent} documents in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary.created} new, ${summary.replaced} replaced, ${summary.unchanged} unchanged. ` +
        `Collection of ${values.user}: ${summary.documentCount} documents, ${summary.chunkCount} chunks.`,
    );
  } finally {
    await worker?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});

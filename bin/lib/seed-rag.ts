/** Seeds the demo user's RAG collection (d1/seed-rag.jsonl) through rag_ingest once the Worker answers. */
import { join } from "node:path";
import { ingestBeirFile } from "./beir-ingest";
import { bearer, closeMcp, connectMcp } from "../../workers/mcp-client/connect";
import { ROOT } from "./wrangler";

export const DEMO_CORPUS = join(ROOT, "d1", "seed-rag.jsonl");

async function waitForHealth(origin: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${origin}/health`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no answer from ${origin}/health within ${timeoutMs / 1000} s`);
}

/** Idempotent: unchanged documents are skipped by content hash. */
export async function seedRagCorpus(origin: string, token: string): Promise<number> {
  await waitForHealth(origin, 120_000);
  const connection = await connectMcp(
    { url: `${origin}/mcp/rag`, headers: bearer(token) },
    { clientName: "mcp-edge-cli", timeoutMs: 30_000, negotiation: "auto" },
  );
  try {
    return (await ingestBeirFile(connection.client, DEMO_CORPUS)).documentCount;
  } finally {
    await closeMcp(connection);
  }
}

/** Sends a BEIR corpus (JSONL: _id, title, text, metadata) to rag_ingest in batches. */
import type { Client } from "@modelcontextprotocol/client";
import { basename } from "node:path";
import { ingestResult } from "../../workers/rag/rag.schema";
import { type BeirDocument, readJsonl } from "./beir";
import { callToolWaitingOutLimits } from "./tool-call-waiting";

/** rag_ingest takes up to 100 documents per call; 50 keeps bodies far below the 1 MiB limit. */
const BATCH_SIZE = 50;

export interface IngestSummary {
  sent: number;
  created: number;
  replaced: number;
  unchanged: number;
  documentCount: number;
  chunkCount: number;
}

async function send(client: Client, batch: BeirDocument[], summary: IngestSummary): Promise<void> {
  const documents = batch.map((doc) => ({
    id: String(doc._id),
    title: doc.title ?? "",
    text: doc.text,
    source: doc.source ?? "",
    metadata: doc.metadata ?? {},
  }));
  const { result } = await callToolWaitingOutLimits(client, { name: "rag_ingest", arguments: { documents } }, { timeout: 300_000 });
  if (result.isError) {
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join(" ");
    throw new Error(`rag_ingest failed: ${text}`);
  }
  const reply = ingestResult.parse(result.structuredContent);
  summary.sent += batch.length;
  for (const d of reply.documents) summary[d.status]++;
  summary.documentCount = reply.document_count;
  summary.chunkCount = reply.chunk_count;
}

export async function ingestBeirFile(client: Client, path: string, onProgress?: (summary: IngestSummary) => void): Promise<IngestSummary> {
  const summary: IngestSummary = { sent: 0, created: 0, replaced: 0, unchanged: 0, documentCount: 0, chunkCount: 0 };
  let batch: BeirDocument[] = [];
  let line = 0;
  for await (const doc of readJsonl<BeirDocument>(path)) {
    line++;
    if (doc._id === undefined || typeof doc.text !== "string")
      throw new Error(`${basename(path)}:${line}: a BEIR document needs _id and text`);
    if (doc.text.trim() === "") continue;
    batch.push(doc);
    if (batch.length === BATCH_SIZE) {
      await send(client, batch, summary);
      batch = [];
      onProgress?.(summary);
    }
  }
  if (batch.length > 0) await send(client, batch, summary);
  onProgress?.(summary);
  return summary;
}

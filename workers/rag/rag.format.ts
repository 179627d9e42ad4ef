/** Text a person (or model) can read, for the `content` block of RAG tool results. */
import type { DocumentSummary, IngestResult, QueryResult, RagHealth } from "./rag.schema";

export function formatQuery(result: QueryResult): string {
  const docs = result.retrieved_documents.map((d, i) => `[${i + 1}] ${d.title || d.doc_id} (doc ${d.doc_id}, score ${d.score.toFixed(3)})`);
  const m = result.metadata;
  return [
    result.answer,
    "",
    docs.length > 0 ? `Documents:\n${docs.join("\n")}` : "No documents matched.",
    `${m.pipeline_name} · ${m.execution_time_ms} ms · embedder ${m.embedder} · reranker ${m.reranker} · generator ${m.generator} · response ${result.response_id}`,
  ].join("\n");
}

export function formatIngest(result: IngestResult): string {
  const counts = { created: 0, replaced: 0, unchanged: 0 };
  for (const d of result.documents) counts[d.status]++;
  return `Ingested ${result.documents.length} documents (${counts.created} new, ${counts.replaced} replaced, ${counts.unchanged} unchanged). Collection: ${result.document_count} documents, ${result.chunk_count} chunks (embedder ${result.embedder}).`;
}

export function formatDocuments(page: { documents: DocumentSummary[]; total: number; next_cursor: string | null }): string {
  if (page.documents.length === 0) return "No documents.";
  const lines = page.documents.map(
    (d) => `${d.doc_id}: ${d.title || "(untitled)"} — ${d.chunk_count} chunks${d.source ? `, ${d.source}` : ""}`,
  );
  const more = page.next_cursor ? `\nMore: pass cursor "${page.next_cursor}".` : "";
  return `${page.total} documents.\n${lines.join("\n")}${more}`;
}

export function formatHealth(health: RagHealth): string {
  const pipelines = health.pipelines.map(
    (p) =>
      `${p.pipeline}: ${p.status} (yours: ${p.queries_last_hour} queries, error rate ${p.error_rate}, p50 ${p.p50_ms} ms, p95 ${p.p95_ms} ms)`,
  );
  const h = health.last_hour;
  return [
    `RAG ${health.status}. D1 ${health.d1.connected ? `connected (${health.d1.response_time_ms} ms)` : "unreachable"}.`,
    `Your last hour: ${h.queries} queries, ${h.queries_per_minute}/min, error rate ${h.error_rate}, p50 ${h.p50_ms} ms, p95 ${h.p95_ms} ms.`,
    ...pipelines,
  ].join("\n");
}

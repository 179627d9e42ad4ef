// The RAG answer view (ui://rag/answer-view.html, opened by every RAG query tool): the answer, and
// the passages behind it with their sources and scores, from the tool result's structuredContent.
import type { App } from "@modelcontextprotocol/ext-apps";
import { clear, h, isRecord } from "./dom";

interface Passage {
  doc_id: string;
  title: string;
  content: string;
  score: number;
  source: string;
}

function passagesOf(content: Record<string, unknown>): Passage[] {
  const documents = content["retrieved_documents"];
  if (!Array.isArray(documents)) return [];
  return documents.filter((doc): doc is Passage => isRecord(doc) && typeof doc["content"] === "string" && typeof doc["score"] === "number");
}

export function startAnswerView(app: App, root: HTMLElement): void {
  clear(root, h("p", { class: "empty" }, "Waiting for the answer…"));
  app.ontoolresult = (result) => {
    const content = result.structuredContent;
    if (result.isError || !isRecord(content)) {
      clear(root, h("p", { class: "notice", role: "alert" }, "The query failed: no answer to show."));
      return;
    }
    const metadata = isRecord(content["metadata"]) ? content["metadata"] : {};
    const passages = passagesOf(content);
    clear(
      root,
      h("h1", {}, "Answer"),
      h("p", { class: "answer" }, typeof content["answer"] === "string" ? content["answer"] : ""),
      h("p", { class: "meta" }, `${String(metadata["pipeline_name"] ?? "")} · ${passages.length} passages`),
      h(
        "ol",
        { class: "passages", "aria-label": "Passages" },
        passages.map((passage) =>
          h(
            "li",
            { class: "passage", "data-doc-id": passage.doc_id },
            h("h2", {}, passage.title || passage.doc_id),
            h("p", { class: "source" }, h("span", {}, passage.source), h("span", { class: "score" }, `score ${passage.score.toFixed(3)}`)),
            h("blockquote", {}, passage.content),
          ),
        ),
      ),
    );
  };
}

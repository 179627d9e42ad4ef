/**
 * The skill /mcp/rag (and /mcp) serves on which RAG pipeline to choose when, as the files of its
 * folder (path → content; Workers have no filesystem). The figures are docs/retrieval.md's
 * (BEIR SciFact test, local models); keep the two in step. Served by mcp/own-skills.ts.
 */
export const RAG_PIPELINES_SKILL_FILES: Readonly<Record<string, string>> = {
  "choosing-a-rag-pipeline/SKILL.md": `---
name: choosing-a-rag-pipeline
description: Which of the six mcp-edge RAG pipelines (rag_basic, rag_basic_rerank, rag_crag, rag_graphrag, rag_colbert, rag_global_graphrag) to ask, when, and what each costs - from measured quality and latency.
---

# Choosing a RAG pipeline

The RAG tools answer from the user's own documents (add them with \`rag_ingest\`; see them with
\`rag_list_documents\`). All six pipelines share one first stage - full-text BM25 and vector
similarity, fused - and differ in what they do after it. Answers cite documents as [n].

## The short rule
1. A specific question: **\`rag_basic\`**. It is the fastest and within a hair of the best.
2. The answer must be exactly right and a few hundred ms do not matter: **\`rag_basic_rerank\`**.
3. A vague or oddly worded question, or \`rag_basic\`'s evidence looks thin: **\`rag_crag\`**.
4. The question turns on named things and how they relate (people, drugs, genes, systems):
   **\`rag_graphrag\`**.
5. The words may be spelled or inflected differently from the documents: **\`rag_colbert\`**.
6. A question about the whole collection ("what are the main themes?"): **\`rag_global_graphrag\`**.
   Never use it for a specific fact: it answers from community summaries, not passages.

## What they cost and how well they retrieve
Measured on BEIR SciFact (300 test queries, 5,183 documents, the local models; docs/retrieval.md):

| pipeline | nDCG@10 | Recall@100 | p50 ms | what it adds |
|---|---|---|---|---|
| rag_basic | 0.692 | 0.922 | 34 | nothing: the fused ranking |
| rag_basic_rerank | 0.701 | 0.934 | 103 | query feedback, then a reranker reads \`rerank_depth\` (100) candidates |
| rag_crag | 0.695 | 0.932 | 41 | below \`confidence_threshold\` (0.6): rewrite, decompose or expand the query, retrieve again |
| rag_graphrag | 0.693 | 0.930 | 120 | entities of the question, \`graph_traversal_depth\` hops in the entity graph |
| rag_colbert | 0.694 | 0.922 | 60 | token-level MaxSim matching, \`interaction_threshold\` (0.5) |
| rag_global_graphrag | 0.009 | 0.051 | 27 | answers from summaries of \`max_communities\` (5) graph communities |

The differences between the first five are small (the standard error of a mean nDCG@10 here is
about 0.02): prefer the cheapest one that fits the question, and change pipeline when an answer's
evidence is weak rather than asking every pipeline.

## Reading the answer
- \`rag_crag\`: \`confidence_score\` (0-1) and \`metadata\` say whether a correction ran and which
  queries it sent. A low score after correction means the collection probably lacks the answer.
- \`rag_global_graphrag\`: citations refer to \`metadata.communities\`.
- Every answer names the embedder, reranker and generator used in \`metadata\`.

## Limits
A pipeline runs a bounded number of queries per user at once; past it the tool answers \`busy\`
with \`retry_after_ms\` - wait that long, do not switch pipelines to get around it. \`rag_health\`
says whether a pipeline is healthy, degraded or failing.
`,
};

/**
 * The RAG skill's figures are docs/retrieval.md's SciFact table, rounded: when `npm run
 * eval:scifact` rewrites the table, this fails until the skill says the same.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RAG_PIPELINES_SKILL_FILES } from "../../../workers/rag/rag-pipelines-skill";

const retrieval = readFileSync(new URL("../../../docs/retrieval.md", import.meta.url), "utf8");
const skill = RAG_PIPELINES_SKILL_FILES["choosing-a-rag-pipeline/SKILL.md"]!;

/** `| `name` | a | b | c | …` rows of docs/retrieval.md's results table, by pipeline. */
function measured(): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  for (const match of retrieval.matchAll(/^\| `(rag_[a-z_]+)` \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|/gm)) {
    rows.set(match[1]!, [Number(match[2]), Number(match[3]), Number(match[4])]);
  }
  return rows;
}

describe("the choosing-a-rag-pipeline skill", () => {
  it("quotes every pipeline's nDCG@10, Recall@100 and p50 as docs/retrieval.md measured them", () => {
    const rows = measured();
    expect([...rows.keys()]).toHaveLength(6);
    for (const [pipeline, [ndcg, recall, p50]] of rows) {
      const row = new RegExp(`^\\| ${pipeline} \\| ([\\d.]+) \\| ([\\d.]+) \\| ([\\d.]+) \\|`, "m").exec(skill);
      expect(row, pipeline).not.toBeNull();
      expect(Number(row![1])).toBeCloseTo(ndcg!, 3);
      expect(Number(row![2])).toBeCloseTo(recall!, 3);
      expect(Number(row![3])).toBeCloseTo(p50!, 0);
    }
  });
});

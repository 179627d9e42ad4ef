/**
 * The local generator: an extractive answer. It picks the sentences of the retrieved passages
 * that share the most query terms (earlier passages win ties), keeps them in passage order and
 * cites each one ([n] = the nth retrieved document). It never states anything the passages do
 * not, which makes it a faithful, if plain, baseline for an LLM.
 */
import { sentences } from "../text/chunk";
import { estimateTokens, queryTerms, terms } from "../text/tokenize";
import type { Generation, GenerationPassage, Generator } from "./types";

const MAX_SENTENCES = 3;
const NO_ANSWER = "None of your documents answers this question.";

interface Candidate {
  citation: number;
  order: number;
  text: string;
  score: number;
}

export class ExtractiveGenerator implements Generator {
  readonly name = "local:extractive";

  async generate(query: string, passages: readonly GenerationPassage[], options: { maxTokens: number }): Promise<Generation> {
    const wanted = new Set(queryTerms(query));
    const candidates: Candidate[] = [];
    passages.forEach((passage, rank) => {
      sentences(passage.content).forEach((text, i) => {
        const found = new Set(terms(text).filter((t) => wanted.has(t)));
        // Coverage decides; a small rank prior prefers the better-ranked passage on ties.
        const score = found.size / Math.max(1, wanted.size) - rank * 0.01 - i * 0.001;
        if (found.size > 0) candidates.push({ citation: passage.citation, order: rank * 1000 + i, text, score });
      });
    });
    const prompt = estimateTokens(query) + passages.reduce((n, p) => n + estimateTokens(p.content), 0);
    const chosen = candidates
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_SENTENCES)
      .sort((a, b) => a.order - b.order);
    const parts: string[] = [];
    let budget = options.maxTokens;
    for (const c of chosen) {
      const sentence = `${c.text} [${c.citation}]`;
      const cost = estimateTokens(sentence);
      if (cost > budget) break;
      parts.push(sentence);
      budget -= cost;
    }
    const answer = parts.length > 0 ? parts.join(" ") : truncateToTokens(NO_ANSWER, options.maxTokens);
    return { answer, tokensUsed: prompt + estimateTokens(answer) };
  }
}

/** The longest prefix of whole words within `maxTokens`. */
export function truncateToTokens(text: string, maxTokens: number): string {
  const parts = text.split(/\s+/);
  let kept = "";
  for (const part of parts) {
    const next = kept ? `${kept} ${part}` : part;
    if (estimateTokens(next) > maxTokens) break;
    kept = next;
  }
  return kept;
}

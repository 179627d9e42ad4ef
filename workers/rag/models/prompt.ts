/** The grounded-answer prompt shared by the LLM generators (Workers AI, OpenAI-compatible). */
import type { GenerationPassage } from "./types";

export const SYSTEM_PROMPT =
  "Answer the question using only the numbered passages. Cite every claim with its passage number in " +
  "square brackets, like [2]. If the passages do not contain the answer, say so. Be concise.";

export function answerPrompt(query: string, passages: readonly GenerationPassage[]): string {
  const context = passages.map((p) => `[${p.citation}] ${p.title ? `${p.title}\n` : ""}${p.content}`).join("\n\n");
  return `Passages:\n${context}\n\nQuestion: ${query}`;
}

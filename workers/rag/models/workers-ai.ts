/**
 * Workers AI adapters (the `AI` binding): embeddings, reranking and generation. Input and output
 * shapes are the models' documented ones (developers.cloudflare.com/workers-ai/models/…); the
 * binding's errors (`<internal code>: <description>`) become busy / unavailable / timeout /
 * upstream_error AppErrors by their documented codes.
 */
import * as z from "zod";
import { AppError } from "../../lib/errors";
import { workersAiError } from "../../lib/provider-errors";
import { checkedVectors } from "./embedding-check";
import { answerPrompt, SYSTEM_PROMPT } from "./prompt";
import type { CorpusStats, Embedder, Generation, GenerationPassage, Generator, RerankCandidate, Reranker } from "./types";

/** The one method of the AI binding these adapters use; the binding (`Ai`) has it. */
export interface AiRunner {
  run(model: string, inputs: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
}

const embeddingOutput = z.object({ data: z.array(z.array(z.number())) });
const rerankOutput = z.object({ response: z.array(z.object({ id: z.int(), score: z.number() })) });
const generationOutput = z.object({
  response: z.string().nullish(),
  usage: z.object({ total_tokens: z.number() }).partial().optional(),
});

async function run(ai: AiRunner, model: string, inputs: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
  signal?.throwIfAborted();
  try {
    return await ai.run(model, inputs, signal ? { signal } : undefined);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw workersAiError(`Workers AI model ${model}`, error);
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, model: string): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new AppError("upstream_error", `Workers AI model ${model} returned an unexpected shape`, { cause: result.error });
  return result.data;
}

export class WorkersAiEmbedder implements Embedder {
  readonly name: string;
  constructor(
    private readonly ai: AiRunner,
    private readonly model: string,
    readonly dimensions: number,
  ) {
    this.name = `workers-ai:${model}`;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    // Workers AI embedding models take at most 100 texts per call.
    for (let i = 0; i < texts.length; i += 100) {
      const batch = texts.slice(i, i + 100);
      const result = parse(embeddingOutput, await run(this.ai, this.model, { text: batch }, signal), this.model);
      out.push(...checkedVectors(this.name, result.data, batch.length, this.dimensions));
    }
    return out;
  }
}

export class WorkersAiReranker implements Reranker {
  readonly name: string;
  constructor(
    private readonly ai: AiRunner,
    private readonly model: string,
  ) {
    this.name = `workers-ai:${model}`;
  }

  async rerank(
    query: string,
    candidates: readonly RerankCandidate[],
    options: { stats: CorpusStats; signal?: AbortSignal },
  ): Promise<number[]> {
    if (candidates.length === 0) return [];
    const contexts = candidates.map((c) => ({ text: c.title ? `${c.title}\n${c.content}` : c.content }));
    const result = parse(
      rerankOutput,
      await run(this.ai, this.model, { query, contexts, top_k: candidates.length }, options.signal),
      this.model,
    );
    const scores = candidates.map(() => Number.NEGATIVE_INFINITY);
    for (const { id, score } of result.response) if (id >= 0 && id < scores.length) scores[id] = score;
    return scores;
  }
}

export class WorkersAiGenerator implements Generator {
  readonly name: string;
  constructor(
    private readonly ai: AiRunner,
    private readonly model: string,
  ) {
    this.name = `workers-ai:${model}`;
  }

  async generate(
    query: string,
    passages: readonly GenerationPassage[],
    options: { maxTokens: number; signal?: AbortSignal },
  ): Promise<Generation> {
    const messages = [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: answerPrompt(query, passages) },
    ];
    const result = parse(
      generationOutput,
      await run(this.ai, this.model, { messages, max_tokens: options.maxTokens }, options.signal),
      this.model,
    );
    const answer = (result.response ?? "").trim();
    return { answer, tokensUsed: Math.round(result.usage?.total_tokens ?? 0) };
  }
}

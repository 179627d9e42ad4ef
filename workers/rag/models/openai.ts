/**
 * Adapters for any OpenAI-compatible endpoint (RAG_OPENAI_BASE_URL, e.g. https://api.openai.com/v1,
 * vLLM, Ollama, LiteLLM): /embeddings, /chat/completions, and the /rerank shape that vLLM, Jina and
 * Cohere-compatible servers share ({ results: [{ index, relevance_score }] }).
 */
import * as z from "zod";
import { AppError } from "../../lib/errors";
import { providerError, retryAfterMs } from "../../lib/provider-errors";
import { checkedVectors } from "./embedding-check";
import { answerPrompt, SYSTEM_PROMPT } from "./prompt";
import type { CorpusStats, Embedder, Generation, GenerationPassage, Generator, RerankCandidate, Reranker } from "./types";

export interface OpenAiEndpoint {
  baseUrl: string;
  apiKey: string | undefined;
}

const embeddingsOutput = z.object({ data: z.array(z.object({ index: z.int(), embedding: z.array(z.number()) })) });
const rerankOutput = z.object({ results: z.array(z.object({ index: z.int(), relevance_score: z.number() })) });
const chatOutput = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }) })).min(1),
  usage: z.object({ total_tokens: z.number() }).partial().optional(),
});
/** The documented error body: `{ error: { message, type, param, code } }`. */
const errorBody = z.object({ error: z.object({ type: z.string().nullish(), code: z.union([z.string(), z.number()]).nullish() }) });

async function post<T>(endpoint: OpenAiEndpoint, path: string, body: unknown, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, "")}${path}`;
  const what = `OpenAI-compatible endpoint ${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}) },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new AppError("upstream_error", `${what} is unreachable`, { cause: error });
  }
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    const parsed = errorBody.safeParse(parseJson(text));
    const code = parsed.success ? (parsed.data.error.code ?? parsed.data.error.type ?? undefined) : undefined;
    throw providerError(what, {
      status: response.status,
      code: code === undefined ? undefined : String(code),
      retryAfterMs: retryAfterMs(response.headers),
      cause: text,
    });
  }
  const parsed = schema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new AppError("upstream_error", `${what} returned an unexpected shape`, { cause: parsed.error });
  return parsed.data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class OpenAiEmbedder implements Embedder {
  readonly name: string;
  constructor(
    private readonly endpoint: OpenAiEndpoint,
    private readonly model: string,
    readonly dimensions: number,
  ) {
    this.name = `openai:${model}`;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += 100) {
      const batch = texts.slice(i, i + 100);
      const result = await post(this.endpoint, "/embeddings", { model: this.model, input: batch }, embeddingsOutput, signal);
      const ordered = [...result.data].sort((a, b) => a.index - b.index);
      out.push(
        ...checkedVectors(
          this.name,
          ordered.map((d) => d.embedding),
          batch.length,
          this.dimensions,
        ),
      );
    }
    return out;
  }
}

export class OpenAiReranker implements Reranker {
  readonly name: string;
  constructor(
    private readonly endpoint: OpenAiEndpoint,
    private readonly model: string,
  ) {
    this.name = `openai:${model}`;
  }

  async rerank(
    query: string,
    candidates: readonly RerankCandidate[],
    options: { stats: CorpusStats; signal?: AbortSignal },
  ): Promise<number[]> {
    if (candidates.length === 0) return [];
    const documents = candidates.map((c) => (c.title ? `${c.title}\n${c.content}` : c.content));
    const result = await post(this.endpoint, "/rerank", { model: this.model, query, documents }, rerankOutput, options.signal);
    const scores = candidates.map(() => Number.NEGATIVE_INFINITY);
    for (const { index, relevance_score } of result.results) if (index >= 0 && index < scores.length) scores[index] = relevance_score;
    return scores;
  }
}

export class OpenAiGenerator implements Generator {
  readonly name: string;
  constructor(
    private readonly endpoint: OpenAiEndpoint,
    private readonly model: string,
  ) {
    this.name = `openai:${model}`;
  }

  async generate(
    query: string,
    passages: readonly GenerationPassage[],
    options: { maxTokens: number; signal?: AbortSignal },
  ): Promise<Generation> {
    const body = {
      model: this.model,
      max_tokens: options.maxTokens,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: answerPrompt(query, passages) },
      ],
    };
    const result = await post(this.endpoint, "/chat/completions", body, chatOutput, options.signal);
    return { answer: (result.choices[0]!.message.content ?? "").trim(), tokensUsed: Math.round(result.usage?.total_tokens ?? 0) };
  }
}

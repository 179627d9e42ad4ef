/** Builds the embedder, reranker and generator the configuration asks for. */
import { AppError } from "../../lib/errors";
import type { RagConfig } from "../rag.config";
import { ExtractiveGenerator } from "./extractive-generator";
import { HashedEmbedder } from "./hashed-embedder";
import { LexicalReranker } from "./lexical-reranker";
import { OpenAiEmbedder, OpenAiGenerator, OpenAiReranker } from "./openai";
import type { Embedder, Generator, Reranker } from "./types";
import { type AiRunner, WorkersAiEmbedder, WorkersAiGenerator, WorkersAiReranker } from "./workers-ai";

export interface Models {
  embedder: Embedder;
  reranker: Reranker;
  generator: Generator;
}

function requireAi(ai: AiRunner | undefined, role: string): AiRunner {
  if (!ai) throw new AppError("unavailable", `RAG ${role} is set to workers-ai but the AI binding is not configured`);
  return ai;
}

function requireOpenAi(config: RagConfig, role: string) {
  if (!config.openAi.baseUrl) throw new AppError("unavailable", `RAG ${role} is set to openai but RAG_OPENAI_BASE_URL is empty`);
  return config.openAi;
}

export function createModels(config: RagConfig, ai: AiRunner | undefined): Models {
  const { models } = config;
  const embedder: Embedder =
    config.embedder === "workers-ai"
      ? new WorkersAiEmbedder(requireAi(ai, "embedder"), models.embedding, models.embeddingDimensions)
      : config.embedder === "openai"
        ? new OpenAiEmbedder(requireOpenAi(config, "embedder"), models.embedding, models.embeddingDimensions)
        : new HashedEmbedder();
  const reranker: Reranker =
    config.reranker === "workers-ai"
      ? new WorkersAiReranker(requireAi(ai, "reranker"), models.rerank)
      : config.reranker === "openai"
        ? new OpenAiReranker(requireOpenAi(config, "reranker"), models.rerank)
        : new LexicalReranker();
  const generator: Generator =
    config.generator === "workers-ai"
      ? new WorkersAiGenerator(requireAi(ai, "generator"), models.generation)
      : config.generator === "openai"
        ? new OpenAiGenerator(requireOpenAi(config, "generator"), models.generation)
        : new ExtractiveGenerator();
  return { embedder, reranker, generator };
}

/**
 * Which language model the agent talks through (all via the AI SDK):
 *   1. AGENT_OPENAI_BASE_URL set            → that OpenAI-compatible endpoint (key: AGENT_OPENAI_API_KEY)
 *   2. else an `AI` binding (Workers AI)    → workers-ai-provider with AGENT_MODEL
 *   3. else                                 → the local intent router (offline, always works)
 * Explicit configuration beats a binding that may only be there for RAG (same order as RAG_* auto).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createWorkersAI } from "workers-ai-provider";
import { LocalRouterModel, type LocalRouterOptions } from "./local-router-model";

/** A Workers AI model that supports function calling. */
export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

export interface ModelConfig {
  AI?: Ai | undefined;
  AGENT_MODEL?: string | undefined;
  AGENT_OPENAI_BASE_URL?: string | undefined;
  AGENT_OPENAI_API_KEY?: string | undefined;
}

export type Backend = "openai" | "workers-ai" | "local";

export interface SelectedModel {
  backend: Backend;
  /** As reported in ChatResult.model: "openai:<model>", "workers-ai:<model>", "local-intent-router". */
  label: string;
  model: LanguageModelV4;
  /** The local router drives its own tool choice; remote models need the system prompt. */
  needsInstructions: boolean;
}

const clean = (value: string | undefined): string | undefined => (value && value.trim() !== "" ? value.trim() : undefined);

export function chooseBackend(config: ModelConfig): Backend {
  if (clean(config.AGENT_OPENAI_BASE_URL)) return "openai";
  if (config.AI) return "workers-ai";
  return "local";
}

export function selectModel(config: ModelConfig, local: LocalRouterOptions = {}): SelectedModel {
  const backend = chooseBackend(config);
  if (backend === "openai") {
    const modelId = clean(config.AGENT_MODEL) ?? DEFAULT_OPENAI_MODEL;
    const apiKey = clean(config.AGENT_OPENAI_API_KEY);
    const provider = createOpenAICompatible({
      name: "agent-openai",
      baseURL: clean(config.AGENT_OPENAI_BASE_URL)!,
      ...(apiKey ? { apiKey } : {}),
    });
    return { backend, label: `openai:${modelId}`, model: provider.chatModel(modelId), needsInstructions: true };
  }
  if (backend === "workers-ai") {
    // AGENT_MODEL names an @cf/@hf model here; anything else would be an OpenAI model name left over.
    const configured = clean(config.AGENT_MODEL);
    const modelId = configured && /^@(?:cf|hf)\//.test(configured) ? configured : DEFAULT_WORKERS_AI_MODEL;
    const workersAi = createWorkersAI({ binding: config.AI! });
    return {
      backend,
      label: `workers-ai:${modelId}`,
      model: workersAi(modelId as Parameters<typeof workersAi>[0]) as LanguageModelV4,
      needsInstructions: true,
    };
  }
  const model = new LocalRouterModel(local);
  return { backend, label: model.modelId, model, needsInstructions: false };
}

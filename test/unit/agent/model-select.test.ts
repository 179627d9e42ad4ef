/**
 * Which model backend the agent picks for which configuration: the choice and the model objects
 * built for it. The remote backends' wire formats are checked in model-contracts.test.ts against a
 * local server; the local router is exercised end to end in chat-api.test.ts.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_OPENAI_MODEL, DEFAULT_WORKERS_AI_MODEL, chooseBackend, selectModel } from "../../../workers/agent/models/select";
import { LOCAL_MODEL_ID, LocalRouterModel } from "../../../workers/agent/models/local-router-model";

/**
 * Stands in for the `AI` binding object; selection only checks that it is there. The one double
 * cast left in the tests: `Ai` is a platform class the test runtime cannot construct or bind
 * without a Cloudflare account, and no model is called here.
 */
const AI = { run: async () => ({}) } as unknown as Ai;

describe("model selection", () => {
  const table: { config: Parameters<typeof chooseBackend>[0]; backend: string; label: string }[] = [
    { config: {}, backend: "local", label: LOCAL_MODEL_ID },
    { config: { AGENT_MODEL: "@cf/some/model" }, backend: "local", label: LOCAL_MODEL_ID },
    { config: { AGENT_OPENAI_BASE_URL: "   " }, backend: "local", label: LOCAL_MODEL_ID },
    { config: { AI }, backend: "workers-ai", label: `workers-ai:${DEFAULT_WORKERS_AI_MODEL}` },
    { config: { AI, AGENT_MODEL: "@cf/qwen/qwen3-30b-a3b-fp8" }, backend: "workers-ai", label: "workers-ai:@cf/qwen/qwen3-30b-a3b-fp8" },
    // An OpenAI model name is no Workers AI model: fall back to the default rather than fail every turn.
    { config: { AI, AGENT_MODEL: "gpt-4o" }, backend: "workers-ai", label: `workers-ai:${DEFAULT_WORKERS_AI_MODEL}` },
    { config: { AGENT_OPENAI_BASE_URL: "https://api.example.com/v1" }, backend: "openai", label: `openai:${DEFAULT_OPENAI_MODEL}` },
    {
      config: { AGENT_OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", AGENT_MODEL: "llama3.1" },
      backend: "openai",
      label: "openai:llama3.1",
    },
    // Explicit endpoint configuration beats a binding that may be there for RAG.
    {
      config: { AI, AGENT_OPENAI_BASE_URL: "https://api.example.com/v1", AGENT_OPENAI_API_KEY: "k", AGENT_MODEL: "gpt-4.1-mini" },
      backend: "openai",
      label: "openai:gpt-4.1-mini",
    },
  ];
  for (const row of table) {
    it(`${JSON.stringify({ ...row.config, AI: row.config.AI ? "<binding>" : undefined })} → ${row.label}`, () => {
      expect(chooseBackend(row.config)).toBe(row.backend);
      const selected = selectModel(row.config);
      expect(selected.backend).toBe(row.backend);
      expect(selected.label).toBe(row.label);
      expect(selected.model.specificationVersion).toBe("v4");
      expect(selected.model.modelId).toBe(row.label.replace(/^(openai|workers-ai):/, ""));
      expect(selected.needsInstructions).toBe(row.backend !== "local");
      if (row.backend === "local") expect(selected.model).toBeInstanceOf(LocalRouterModel);
    });
  }
});

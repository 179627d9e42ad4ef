/**
 * Contract tests of the agent's model backends against the providers' documented wire formats,
 * served by test/upstreams/model-providers.ts: the OpenAI-compatible backend exactly as
 * `selectModel` builds it (AGENT_OPENAI_BASE_URL), and Workers AI through workers-ai-provider over
 * the documented REST API. A whole turn runs through `runTurn` — request, streamed reply, tool call
 * round trip — and a provider failure ends it with a clear AppError: `busy` with `retry_after_ms`
 * for a rate limit (HTTP 429 + Retry-After on /api/chat), `upstream_error` otherwise.
 *
 * Documentation the shapes follow:
 * - OpenAI chat completions, streaming and tool calls: https://platform.openai.com/docs/api-reference/chat/create,
 *   https://platform.openai.com/docs/api-reference/chat-streaming, https://platform.openai.com/docs/guides/function-calling
 * - OpenAI errors and rate limits: https://platform.openai.com/docs/guides/error-codes,
 *   https://platform.openai.com/docs/guides/rate-limits
 * - Workers AI REST and streaming: https://developers.cloudflare.com/workers-ai/get-started/rest-api/,
 *   https://developers.cloudflare.com/workers-ai/features/streaming/, the model
 *   https://developers.cloudflare.com/workers-ai/models/llama-3.3-70b-instruct-fp8-fast/, errors
 *   https://developers.cloudflare.com/workers-ai/platform/errors/
 */
import { describe, expect, it } from "vitest";
import { createWorkersAI } from "workers-ai-provider";
import { runTurn } from "../../../workers/agent/chat-loop";
import { DEFAULT_WORKERS_AI_MODEL, selectModel } from "../../../workers/agent/models/select";
import { ownTools } from "../../../workers/agent/tools";
import { AppError } from "../../../workers/lib/errors";
import { ACCOUNT_ID, API_TOKEN, providerRun } from "../../helpers/model-providers";

const context = { now: new Date("2026-11-21T10:00:00Z"), timeZone: "Asia/Karachi", identity: { userId: 1 } };
const tools = ownTools(() => []);
const INSTRUCTIONS = "You are the mcp-edge test agent.";

function openAiModel(base: string, model: string) {
  const selected = selectModel({ AGENT_OPENAI_BASE_URL: `${base}/openai/v1`, AGENT_OPENAI_API_KEY: "sk-agent", AGENT_MODEL: model });
  expect(selected.label).toBe(`openai:${model}`);
  return selected.model;
}

/** workers-ai-provider over the REST API, sent to the local server instead of api.cloudflare.com. */
function workersAiModel(base: string, model: string) {
  const provider = createWorkersAI({
    accountId: ACCOUNT_ID,
    apiKey: API_TOKEN,
    fetch: (input, init) => fetch(String(input instanceof Request ? input.url : input).replace("https://api.cloudflare.com", base), init),
  });
  return provider(model as Parameters<typeof provider>[0]);
}

async function failedTurn(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("the OpenAI-compatible backend", { timeout: 30_000 }, () => {
  it("streams a turn with a tool call: documented request, tool round trip, reply", async () => {
    const run = providerRun();
    const output = await runTurn({
      model: openAiModel(run.base, "gpt-test"),
      instructions: INSTRUCTIONS,
      tools,
      history: [],
      message: "please call current_time",
      context,
    });
    expect(output.reply).toBe("The tool answered.");
    expect(output.tool_calls).toEqual([expect.objectContaining({ id: "call_1", name: "current_time", is_error: false })]);

    const requests = await run.requests();
    expect(requests.map((r) => [r.path, r.authorization])).toEqual([
      ["openai/v1/chat/completions", "Bearer sk-agent"],
      ["openai/v1/chat/completions", "Bearer sk-agent"],
    ]);
    const first = requests[0]!.body as { model: string; stream: boolean; messages: { role: string; content: unknown }[]; tools: unknown[] };
    expect(first).toMatchObject({ model: "gpt-test", stream: true });
    expect(first.messages).toEqual([
      { role: "system", content: INSTRUCTIONS },
      { role: "user", content: "please call current_time" },
    ]);
    expect(first.tools).toContainEqual({
      type: "function",
      function: expect.objectContaining({ name: "current_time", parameters: expect.objectContaining({ type: "object" }) }),
    });
    const second = requests[1]!.body as { messages: { role: string; tool_call_id?: string; tool_calls?: unknown[] }[] };
    expect(second.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(second.messages[2]!.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "current_time", arguments: "{}" } },
    ]);
    expect(second.messages[3]!.tool_call_id).toBe("call_1");
  });

  it("ends a turn on a rate limit with busy and the provider's retry hint, on a 500 with upstream_error", async () => {
    const run = providerRun();
    const limited = await failedTurn(runTurn({ model: openAiModel(run.base, "rate-limited"), tools, history: [], message: "hi", context }));
    expect(limited).toMatchObject({
      code: "busy",
      message: "The language model is busy (HTTP 429, rate_limit_exceeded); retry after 1000 ms",
      details: { retry_after_ms: 1000, provider_code: "rate_limit_exceeded" },
    });
    const broken = await failedTurn(runTurn({ model: openAiModel(run.base, "broken"), tools, history: [], message: "hi", context }));
    expect(broken).toMatchObject({ code: "upstream_error", message: "The language model answered HTTP 500 (server_error)" });
  });
});

describe("the Workers AI backend (workers-ai-provider over the REST API)", { timeout: 30_000 }, () => {
  it("streams a reply from the model's `response` events", async () => {
    const run = providerRun();
    const output = await runTurn({
      model: workersAiModel(run.base, DEFAULT_WORKERS_AI_MODEL),
      instructions: INSTRUCTIONS,
      tools,
      history: [],
      message: "hello there",
      context,
    });
    expect(output.reply).toBe("You said: hello there");
    const [request] = await run.requests();
    expect(request).toMatchObject({
      path: `client/v4/accounts/${ACCOUNT_ID}/ai/run/${DEFAULT_WORKERS_AI_MODEL}`,
      authorization: `Bearer ${API_TOKEN}`,
      body: {
        stream: true,
        messages: [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: "hello there" },
        ],
      },
    });
  });

  it("ends a turn on out-of-capacity (3040, HTTP 429) with busy and the retry hint", async () => {
    const run = providerRun();
    const busy = await failedTurn(
      runTurn({ model: workersAiModel(run.base, "@cf/test/rate-limited"), tools, history: [], message: "hi", context }),
    );
    expect(busy).toMatchObject({
      code: "busy",
      message: "The language model is busy (HTTP 429, 3040); retry after 1000 ms",
      details: { retry_after_ms: 1000 },
    });
  });
});

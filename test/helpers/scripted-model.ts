/**
 * A language model that plays a fixed script, one step per call — for behaviour no real model
 * can be made to show on demand (impersonating another user, inventing a tool). It records what
 * it was shown, so tests can check the schemas and messages the agent sent.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

export type Step = { toolCall: { name: string; input: Record<string, unknown> } } | { text: string };

export class ScriptedModel implements LanguageModelV4 {
  readonly specificationVersion = "v4" as const;
  readonly provider = "test";
  readonly modelId = "scripted";
  readonly supportedUrls = {};
  readonly seen: LanguageModelV4CallOptions[] = [];

  constructor(private readonly steps: readonly Step[]) {}

  doGenerate(): never {
    throw new Error("the agent streams: doStream only");
  }

  async doStream(options: LanguageModelV4CallOptions) {
    this.seen.push(options);
    const step = this.steps[this.seen.length - 1] ?? { text: "(script ended)" };
    const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
    if ("toolCall" in step) {
      parts.push({
        type: "tool-call",
        toolCallId: `call-${this.seen.length}`,
        toolName: step.toolCall.name,
        input: JSON.stringify(step.toolCall.input),
      });
      parts.push({ type: "finish", usage: USAGE, finishReason: { unified: "tool-calls", raw: undefined } });
    } else {
      parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: step.text }, { type: "text-end", id: "t" });
      parts.push({ type: "finish", usage: USAGE, finishReason: { unified: "stop", raw: undefined } });
    }
    return {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }
}

/**
 * The LOCAL default model: the offline intent router (workers/agent/intent) behind the AI SDK's
 * LanguageModelV4 interface, so chat without any configured LLM runs through exactly the same
 * generateText/streamText tool loop as Workers AI or an OpenAI-compatible endpoint.
 *
 * - On a user message it emits the routed tool call(s), with the arguments the router extracted,
 *   choosing only among the tools this call offers (`options.tools`).
 * - After tool results (the tool messages following that user message) it writes a short reply
 *   from the results themselves: the tool's own text, led by a line in the user's language.
 * - Anything it cannot route gets the router's help reply, in English or Roman Urdu to match.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
} from "@ai-sdk/provider";
import { route } from "../intent/route";
import { normalize } from "../intent/text";
import { type Language, PHRASES, languageOf, localizeRouterReply } from "./language";

export const LOCAL_MODEL_ID = "local-intent-router";

export interface LocalRouterOptions {
  /** The moment relative dates are computed from; read per call so a long-lived model stays right. */
  now?: () => Date;
  /** The user's IANA time zone ("tomorrow 5pm" is 5pm there). */
  timeZone?: string | undefined;
}

// The agent's own tools are not task intents, so the router does not know them; these phrasings do.
const ASKS_TIME =
  /\b(?:what(?:'s| is)? (?:the )?(?:time|date)|time is it|current (?:time|date)|today'?s date|what day is (?:it|today)|kya (?:time|waqt) hai|kitne baje|aaj kya (?:din|tareekh|tarikh) hai|abhi (?:kya )?(?:time|waqt))\b/i;
const ASKS_TOOLS =
  /\b(?:(?:which|what|list|show)(?: are)?(?: your| my| the)? tools|tools (?:do you have|can you use|available)|kaun ?se tools|konse tools|tools (?:dikhao|batao))\b/i;

const USAGE = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

export class LocalRouterModel implements LanguageModelV4 {
  readonly specificationVersion = "v4" as const;
  readonly provider = "mcp-edge";
  readonly modelId = LOCAL_MODEL_ID;
  readonly supportedUrls = {};
  private calls = 0;

  constructor(private readonly options: LocalRouterOptions = {}) {}

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const content = this.respond(options);
    const called = content.some((part) => part.type === "tool-call");
    return {
      content,
      finishReason: { unified: called ? "tool-calls" : "stop", raw: undefined },
      usage: USAGE,
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<{ stream: ReadableStream<LanguageModelV4StreamPart> }> {
    const { content, finishReason } = await this.doGenerate(options);
    const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
    for (const [index, part] of content.entries()) {
      if (part.type === "text") {
        const id = `text-${index}`;
        parts.push({ type: "text-start", id }, { type: "text-delta", id, delta: part.text }, { type: "text-end", id });
      } else {
        parts.push(part as LanguageModelV4StreamPart);
      }
    }
    parts.push({ type: "finish", usage: USAGE, finishReason });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }

  private respond(options: LanguageModelV4CallOptions): LanguageModelV4Content[] {
    const { userText, results } = lastExchange(options.prompt);
    const language = languageOf(userText);
    if (results.length > 0) return [{ type: "text", text: summarise(results, language) }];

    const tools = (options.tools ?? []).filter((tool) => tool.type === "function").map((tool) => tool.name);
    const text = normalize(userText);
    if (tools.includes("current_time") && ASKS_TIME.test(text)) return [this.toolCall("current_time", {})];
    if (tools.includes("list_my_tools") && ASKS_TOOLS.test(text)) return [this.toolCall("list_my_tools", {})];

    const routed = route(userText, { now: this.options.now?.() ?? new Date(), timeZone: this.options.timeZone, tools });
    if (routed.kind === "tool_calls") return routed.calls.map((call) => this.toolCall(call.name, call.arguments));
    return [{ type: "text", text: withOwnTools(localizeRouterReply(routed.text, language), tools, language) }];
  }

  private toolCall(toolName: string, input: Record<string, unknown>): LanguageModelV4Content {
    return {
      type: "tool-call",
      toolCallId: `local-${++this.calls}-${crypto.randomUUID().slice(0, 8)}`,
      toolName,
      input: JSON.stringify(input),
    };
  }
}

interface ToolOutcome {
  toolName: string;
  text: string;
  isError: boolean;
}

/** The latest user message, and the tool results that came after it (empty before any tool ran). */
function lastExchange(prompt: LanguageModelV4Prompt): { userText: string; results: ToolOutcome[] } {
  let lastUser = -1;
  prompt.forEach((message, index) => {
    if (message.role === "user") lastUser = index;
  });
  const user = prompt[lastUser];
  const userText =
    user?.role === "user"
      ? user.content
          .map((part) => (part.type === "text" ? part.text : ""))
          .join(" ")
          .trim()
      : "";
  const results: ToolOutcome[] = [];
  for (const message of prompt.slice(lastUser + 1)) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result") results.push({ toolName: part.toolName, ...outputText(part.output) });
    }
  }
  return { userText, results };
}

function outputText(output: LanguageModelV4ToolResultOutput): { text: string; isError: boolean } {
  switch (output.type) {
    case "text":
      return { text: output.value, isError: false };
    case "error-text":
      return { text: output.value, isError: true };
    case "json":
      return { text: JSON.stringify(output.value), isError: false };
    case "error-json":
      return { text: JSON.stringify(output.value), isError: true };
    case "execution-denied":
      return { text: output.reason ?? "The tool call was not allowed.", isError: true };
    case "content":
      return { text: output.value.map((part) => (part.type === "text" ? part.text : "")).join("\n"), isError: false };
  }
}

const LEADS: Record<string, keyof (typeof PHRASES)["en"]> = {
  list_tasks: "found",
  search_tasks: "found",
  get_recurring_tasks: "found",
  analytics_summary: "summary",
  current_time: "time",
  list_my_tools: "tools",
};

function summarise(results: readonly ToolOutcome[], language: Language): string {
  const phrases = PHRASES[language];
  return results
    .map((result) => {
      const body = result.text.trim();
      if (result.isError) return `${phrases.failed(result.toolName)} ${body}`;
      const lead = phrases[LEADS[result.toolName] ?? "done"];
      return typeof lead === "string" ? `${lead}\n${body}` : body;
    })
    .join("\n\n");
}

/** The router lists the task intents; the agent's own tools are worth a line too. */
function withOwnTools(text: string, tools: readonly string[], language: Language): string {
  if (!tools.includes("current_time") && !tools.includes("list_my_tools")) return text;
  if (!/\n- /.test(text) && !/only chat|sirf baat/.test(text)) return text;
  return `${text}\n${PHRASES[language].ownTools}`;
}

/**
 * One chat turn through the AI SDK: streamText with the turn's tools and a step limit, whatever
 * the model (local router, Workers AI, OpenAI-compatible). Tool calls and results are reported
 * as they happen (onEvent), then the reply; the same events make the JSON answer.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { type ModelMessage, type ToolSet, dynamicTool, isStepCount, jsonSchema, streamText } from "ai";
import { modelFailure } from "./models/model-errors";
import { isJsonObject } from "../lib/json";
import { log } from "../lib/log";
import type { ChatEvent, ChatToolCall, HistoryMessage } from "./agent.types";
import type { AgentTool, TurnContext } from "./tools";

/** Model steps per turn: enough for call → result → another call → reply, never a runaway loop. */
export const MAX_STEPS = 6;
const TURN_TIMEOUT_MS = 90_000;

export interface TurnInput {
  model: LanguageModelV4;
  /** System instructions for a real LLM; the local router needs none. */
  instructions?: string | undefined;
  tools: readonly AgentTool[];
  history: readonly HistoryMessage[];
  message: string;
  context: TurnContext;
  onEvent?: ((event: ChatEvent) => void) | undefined;
}

export interface TurnOutput {
  reply: string;
  tool_calls: ChatToolCall[];
}

interface Finished {
  text: string;
  isError: boolean;
  durationMs: number;
}

function toolSet(tools: readonly AgentTool[], context: TurnContext, finished: Map<string, Finished>): ToolSet {
  const set: ToolSet = {};
  for (const agentTool of tools) {
    set[agentTool.name] = dynamicTool({
      description: agentTool.description,
      inputSchema: jsonSchema(agentTool.inputSchema),
      execute: async (input, { toolCallId }) => {
        const started = Date.now();
        const args = isJsonObject(input) ? input : {};
        const outcome = await agentTool.execute(args, context).catch((error: unknown) => ({
          text: `The tool ${agentTool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          isError: true,
        }));
        finished.set(toolCallId, { text: outcome.text, isError: outcome.isError, durationMs: Date.now() - started });
        return outcome.text;
      },
      // The model reads a failed call as an error, not as data.
      toModelOutput: ({ toolCallId, output }) => {
        const text = typeof output === "string" ? output : JSON.stringify(output);
        return finished.get(toolCallId)?.isError ? { type: "error-text", value: text } : { type: "text", value: text };
      },
    });
  }
  return set;
}

function toMessages(history: readonly HistoryMessage[], message: string): ModelMessage[] {
  const messages: ModelMessage[] = history.map((entry) =>
    entry.role === "user" ? { role: "user", content: entry.text } : { role: "assistant", content: entry.text },
  );
  messages.push({ role: "user", content: message });
  return messages;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function runTurn(input: TurnInput): Promise<TurnOutput> {
  const finished = new Map<string, Finished>();
  const calls = new Map<string, ChatToolCall>();
  const emit = input.onEvent ?? (() => undefined);
  let text = "";
  let failure: unknown;

  const result = streamText({
    model: input.model,
    ...(input.instructions ? { instructions: input.instructions } : {}),
    messages: toMessages(input.history, input.message),
    tools: toolSet(input.tools, input.context, finished),
    stopWhen: isStepCount(MAX_STEPS),
    maxRetries: 1,
    abortSignal: AbortSignal.timeout(TURN_TIMEOUT_MS),
    // The error also arrives as an "error" part below; this replaces the SDK's own console dump
    // (a stack trace) with one structured line.
    onError: ({ error }) =>
      log.error("agent model call failed", { provider: input.model.provider, model: input.model.modelId, error: errorText(error) }),
  });

  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        text += part.text;
        break;
      case "tool-call": {
        const args = typeof part.input === "object" && part.input !== null ? (part.input as Record<string, unknown>) : {};
        calls.set(part.toolCallId, {
          id: part.toolCallId,
          name: part.toolName,
          arguments: args,
          is_error: false,
          duration_ms: 0,
          result: "",
        });
        emit({ event: "tool_call", data: { id: part.toolCallId, name: part.toolName, arguments: args } });
        break;
      }
      case "tool-result":
      case "tool-error": {
        const done = finished.get(part.toolCallId);
        const call = calls.get(part.toolCallId) ?? {
          id: part.toolCallId,
          name: part.toolName,
          arguments: {},
          is_error: false,
          duration_ms: 0,
          result: "",
        };
        call.is_error = part.type === "tool-error" || (done?.isError ?? false);
        call.duration_ms = done?.durationMs ?? 0;
        call.result = part.type === "tool-error" ? errorText(part.error) : (done?.text ?? String(part.output));
        calls.set(call.id, call);
        emit({
          event: "tool_result",
          data: { id: call.id, name: call.name, is_error: call.is_error, duration_ms: call.duration_ms, result: call.result },
        });
        break;
      }
      case "error":
        failure = part.error;
        break;
      default:
        break;
    }
  }
  if (failure !== undefined) throw modelFailure(failure);
  const reply = text.trim() || fallbackReply([...calls.values()]);
  emit({ event: "reply", data: { text: reply } });
  return { reply, tool_calls: [...calls.values()] };
}

/** A model that ran tools but said nothing still owes the user an answer: the tools' own words. */
function fallbackReply(calls: readonly ChatToolCall[]): string {
  if (calls.length === 0) return "(no reply)";
  return calls.map((call) => (call.is_error ? `${call.name} failed: ${call.result}` : call.result)).join("\n\n");
}

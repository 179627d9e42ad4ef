/**
 * The AI SDK tool loop the agent runs for every model: invented tools, a model that never stops
 * calling tools, a model endpoint that cannot be reached, and the order of the reported events.
 */
import { describe, expect, it } from "vitest";
import type { ChatEvent } from "../../../workers/agent/agent.types";
import { MAX_STEPS, runTurn } from "../../../workers/agent/chat-loop";
import { ChatSession } from "../../../workers/agent/chat-session";
import { AppError } from "../../../workers/lib/errors";
import { ownTools } from "../../../workers/agent/tools";
import { ScriptedModel } from "../../helpers/scripted-model";

const context = { now: new Date("2026-11-21T10:00:00Z"), timeZone: "Asia/Karachi", identity: { userId: 1 } };
const tools = ownTools(() => []);

describe("runTurn", () => {
  it("a tool the model invented is an error result, and the turn still ends with a reply", async () => {
    const model = new ScriptedModel([{ toolCall: { name: "launch_rockets", input: {} } }, { text: "Sorry, I cannot do that." }]);
    const output = await runTurn({ model, tools, history: [], message: "launch", context });
    expect(output.tool_calls).toHaveLength(1);
    expect(output.tool_calls[0]).toMatchObject({ name: "launch_rockets", is_error: true });
    expect(output.tool_calls[0]!.result).toMatch(/launch_rockets/);
    expect(output.reply).toBe("Sorry, I cannot do that.");
  });

  it(`stops a model that never stops calling tools after ${MAX_STEPS} steps, answering with the tools' words`, async () => {
    const model = new ScriptedModel(Array.from({ length: 20 }, () => ({ toolCall: { name: "current_time", input: {} } })));
    const output = await runTurn({ model, tools, history: [], message: "time?", context });
    expect(model.seen).toHaveLength(MAX_STEPS);
    expect(output.tool_calls).toHaveLength(MAX_STEPS);
    expect(output.reply).toContain("Asia/Karachi");
  });

  it("reports tool_call, tool_result, reply in order, with the model's history in front of the message", async () => {
    const model = new ScriptedModel([
      { toolCall: { name: "current_time", input: { time_zone: "Europe/London" } } },
      { text: "It is late." },
    ]);
    const events: ChatEvent[] = [];
    const output = await runTurn({
      model,
      tools,
      history: [
        { role: "user", text: "hi", at: "2026-11-21T09:00:00Z" },
        { role: "assistant", text: "Hello!", at: "2026-11-21T09:00:00Z" },
      ],
      message: "what time is it in London?",
      context,
      onEvent: (event) => events.push(event),
    });
    expect(events.map((event) => event.event)).toEqual(["tool_call", "tool_result", "reply"]);
    expect(events[1]!.data).toMatchObject({ name: "current_time", is_error: false });
    expect(output.tool_calls[0]!.result).toMatch(/Europe\/London/);
    expect(model.seen[0]!.prompt.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    // An own tool's error (an unknown zone) reaches the model as an error.
    const bad = new ScriptedModel([{ toolCall: { name: "current_time", input: { time_zone: "Mars/Base" } } }, { text: "ok" }]);
    const failed = await runTurn({ model: bad, tools, history: [], message: "x", context });
    expect(failed.tool_calls[0]).toMatchObject({
      is_error: true,
      result: 'Unknown time zone "Mars/Base": use an IANA name such as Asia/Karachi',
    });
    const toolMessage = bad.seen[1]!.prompt.find((message) => message.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain('"type":"error-text"');
  });
});

describe("a configured model that cannot be reached", () => {
  it("fails the turn with a clear upstream_error (a 502 on /api/chat), never a crash", async () => {
    const session = new ChatSession({ mcpUrl: "", model: { AGENT_OPENAI_BASE_URL: "http://127.0.0.1:1/v1", AGENT_MODEL: "some-model" } });
    const error = await session.chat({ message: "hello", history: [] }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("upstream_error");
    expect((error as AppError).message).toMatch(/^The language model failed: /);
    // The session is still usable afterwards.
    const again = await session.chat({ message: "hello", history: [] }).catch((thrown: unknown) => thrown);
    expect((again as AppError).code).toBe("upstream_error");
  });
});

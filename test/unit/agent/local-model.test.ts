/**
 * The local intent-router model through the AI SDK's own tool loop (generateText / streamText),
 * with real tools: it calls what the router extracts, only among the tools offered, and after the
 * results writes its reply from them in the user's language.
 */
import { type ToolSet, dynamicTool, generateText, isStepCount, jsonSchema } from "ai";
import { describe, expect, it } from "vitest";
import { LocalRouterModel } from "../../../workers/agent/models/local-router-model";
import { languageOf } from "../../../workers/agent/models/language";

const NOW = new Date("2026-11-21T10:00:00Z");

function recordingTools(names: readonly string[], answer: (name: string, input: unknown) => string) {
  const calls: { name: string; input: unknown }[] = [];
  const tools: ToolSet = {};
  for (const name of names) {
    tools[name] = dynamicTool({
      description: name,
      inputSchema: jsonSchema({ type: "object" }),
      execute: async (input) => {
        calls.push({ name, input });
        return answer(name, input);
      },
    });
  }
  return { tools, calls };
}

describe("LocalRouterModel in generateText", () => {
  it("calls add_task with the extracted arguments, then replies from the result", async () => {
    const { tools, calls } = recordingTools(["add_task", "list_tasks"], () => "Created #7 [ ] call mom — due 2026-11-22T12:00:00.000Z");
    const result = await generateText({
      model: new LocalRouterModel({ now: () => NOW, timeZone: "Asia/Karachi" }),
      tools,
      stopWhen: isStepCount(5),
      prompt: "add a task to call mom tomorrow at 5pm",
    });
    expect(calls).toEqual([{ name: "add_task", input: { title: "call mom", due_date: "2026-11-22T12:00:00.000Z" } }]);
    expect(result.text).toBe("Done.\nCreated #7 [ ] call mom — due 2026-11-22T12:00:00.000Z");
    expect(result.steps).toHaveLength(2);
  });

  it("answers in Roman Urdu after a Roman Urdu request", async () => {
    const { tools } = recordingTools(["list_tasks"], () => "#1 [ ] paani peena");
    const result = await generateText({
      model: new LocalRouterModel({ now: () => NOW }),
      tools,
      stopWhen: isStepCount(5),
      prompt: "mere tasks dikhao",
    });
    expect(result.text).toBe("Yeh raha jo mila:\n#1 [ ] paani peena");
  });

  it("never calls a tool it was not offered: without add_task it explains instead", async () => {
    const { tools, calls } = recordingTools(["list_tasks"], () => "");
    const result = await generateText({
      model: new LocalRouterModel({ now: () => NOW }),
      tools,
      stopWhen: isStepCount(5),
      prompt: "add a task to call mom",
    });
    expect(calls).toEqual([]);
    expect(result.text).toMatch(/^I understood that, but the add_task tool isn't available here\./);
  });

  it("only the latest user message is routed; earlier turns are context", async () => {
    const { tools, calls } = recordingTools(["add_task", "list_tasks"], () => "ok");
    await generateText({
      model: new LocalRouterModel({ now: () => NOW }),
      tools,
      stopWhen: isStepCount(5),
      messages: [
        { role: "user", content: "add a task to call mom" },
        { role: "assistant", content: "Done." },
        { role: "user", content: "show my tasks" },
      ],
    });
    expect(calls.map((call) => call.name)).toEqual(["list_tasks"]);
  });
});

describe("questions back, in the user's language", () => {
  const table: [string, RegExp][] = [
    ["yeh ho gaya", /^Kaunsa task ho gaya\? Us ka number batayein, jaise "complete task 3" or "task 3 ho gaya"\.$/],
    ["mark it done", /^Which task is done\? Give its number/],
    ["isay hata do", /^Kaunsa task hatana hai\?/],
    ["search karo", /^Kya dhoondna hai\? Jaise:/],
    ["naya task", /^Task mein kya likhna hai\? Jaise:/],
    ["tag lagao", /^Kis task par tag lagana hai\? Jaise/],
    ["add a task", /^What should the task say\?/],
  ];
  for (const [text, reply] of table) {
    it(`"${text}"`, async () => {
      const { tools, calls } = recordingTools(["add_task", "list_tasks", "complete_task", "delete_task", "search_tasks"], () => "");
      const result = await generateText({ model: new LocalRouterModel({ now: () => NOW }), tools, prompt: text });
      expect(calls).toEqual([]);
      expect(result.text).toMatch(reply);
    });
  }
});

describe("language of a message", () => {
  const table: [string, "en" | "ur"][] = [
    ["add a task to call mom tomorrow", "en"],
    ["what time is it?", "en"],
    ["what do I have to do today", "en"],
    ["kal 5 baje ammi ko call karna hai", "ur"],
    ["mere tasks dikhao", "ur"],
    ["task 3 ho gaya", "ur"],
    ["kya time hai?", "ur"],
  ];
  for (const [text, language] of table) it(`"${text}" → ${language}`, () => expect(languageOf(text)).toBe(language));
});

/**
 * /api/chat end to end, across both Workers (its request and answer shapes in
 * workers/agent/agent.types.ts): the main Worker under test authenticates and validates, the chat
 * agent's Worker beside it (vitest.config.ts) runs the user's ChatAgent with the local
 * intent-router model through the AI SDK, and its MCP tools are the main Worker's own /mcp, served
 * for the caller's principal over the AgentMcp binding (MCP_URL = http://localhost/mcp). Real D1,
 * real DOs. The object's own lifecycle is tested in place in test/agent-worker/.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ChatResult, HistoryMessage } from "../../../workers/agent/agent.types";
import { warmUpChat } from "../../helpers/chat";
import { workerFetch } from "../../helpers/mcp";
import { api, type ErrorBody } from "../../helpers/rest";
import { createUser, type TestUser } from "../../helpers/users";

beforeAll(warmUpChat, 60_000);
const KARACHI = "Asia/Karachi"; // UTC+05:00 all year

function chat(user: TestUser, message: string, timeZone = KARACHI) {
  return api<ChatResult>(user, "POST", "/api/chat", { body: { message, time_zone: timeZone } });
}

/** Tomorrow at `hour`:00 in Karachi as a UTC instant, for the date at `at`. */
function tomorrowInKarachi(hour: number, at = Date.now()): string {
  const localToday = new Date(at + 5 * 3600_000).toISOString().slice(0, 10);
  const tomorrow = new Date(Date.parse(`${localToday}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return new Date(Date.parse(`${tomorrow}T00:00:00Z`) + (hour - 5) * 3600_000).toISOString();
}

describe("chat with the local intent router against the Worker's own /mcp", () => {
  it('"add a task to call mom tomorrow" creates the caller\'s task with the right due date; "list my tasks" shows it', async () => {
    const user = await createUser();
    const before = tomorrowInKarachi(17);
    const added = await chat(user, "add a task to call mom tomorrow at 5pm");
    const after = tomorrowInKarachi(17);
    expect(added.status).toBe(200);
    expect(added.body.model).toBe("local-intent-router");
    expect(added.body.warnings).toEqual([]);
    expect(added.body.tool_calls).toHaveLength(1);
    const call = added.body.tool_calls[0]!;
    expect(call).toMatchObject({ name: "add_task", is_error: false, arguments: { title: "call mom" } });
    expect([before, after]).toContain(call.arguments["due_date"]);
    expect(call.duration_ms).toBeGreaterThanOrEqual(0);
    expect(call.id).toMatch(/./);
    expect(added.body.reply).toMatch(/^Done\.\nCreated #\d+ \[ \] call mom — due /);

    const tasks = await api<{ tasks: { title: string; due_date: string; status: string }[] }>(user, "GET", "/api/tasks");
    expect(tasks.body.tasks).toHaveLength(1);
    expect(tasks.body.tasks[0]).toMatchObject({ title: "call mom", status: "pending" });
    expect([before, after]).toContain(tasks.body.tasks[0]!.due_date);

    const listed = await chat(user, "list my tasks");
    expect(listed.body.tool_calls).toMatchObject([{ name: "list_tasks", is_error: false }]);
    expect(listed.body.reply).toMatch(/^Here is what I found:\n#\d+ \[ \] call mom/);
  });

  it("Roman Urdu: adds, lists and completes, answering in Roman Urdu", async () => {
    const user = await createUser();
    const before = tomorrowInKarachi(17);
    const added = await chat(user, "kal 5 baje ammi ko call karna hai");
    const after = tomorrowInKarachi(17);
    expect(added.body.tool_calls).toMatchObject([{ name: "add_task", is_error: false, arguments: { title: "ammi ko call karna" } }]);
    expect([before, after]).toContain(added.body.tool_calls[0]!.arguments["due_date"]);
    expect(added.body.reply).toMatch(/^Ho gaya\.\nCreated #\d+/);

    const listed = await chat(user, "mere tasks dikhao");
    expect(listed.body.tool_calls).toMatchObject([{ name: "list_tasks" }]);
    expect(listed.body.reply).toMatch(/^Yeh raha jo mila:\n#\d+ \[ \] ammi ko call karna/);

    const id = (await api<{ tasks: { id: number }[] }>(user, "GET", "/api/tasks")).body.tasks[0]!.id;
    const done = await chat(user, `task ${id} ho gaya`);
    expect(done.body.tool_calls).toMatchObject([{ name: "complete_task", is_error: false, arguments: { task_id: id } }]);
    const after2 = await api<{ tasks: { status: string }[] }>(user, "GET", "/api/tasks");
    expect(after2.body.tasks[0]!.status).toBe("completed");
  });

  it("an unknown intent gets a helpful reply listing what it can do, in the user's language", async () => {
    const user = await createUser();
    const english = await chat(user, "the quick brown fox");
    expect(english.body.tool_calls).toEqual([]);
    expect(english.body.reply).toMatch(
      /^Sorry, I didn't understand that\. I can help with your tasks, in English or Roman Urdu:\n- add a task:/,
    );
    expect(english.body.reply).toContain('"what time is it?"');
    const urdu = await chat(user, "yeh kya cheez hai bhai");
    expect(urdu.body.tool_calls).toEqual([]);
    expect(urdu.body.reply).toMatch(
      /^Maaf kijiye, main yeh samajh nahi saka\. Main aap ke tasks mein madad kar sakta hoon, English ya Roman Urdu mein:\n- /,
    );
    expect(urdu.body.reply).toContain('"kya time hai?"');
  });

  it("a tool error is reported as such and the reply says it did not work", async () => {
    const user = await createUser();
    const result = await chat(user, "complete task 999999");
    expect(result.status).toBe(200);
    expect(result.body.tool_calls).toMatchObject([{ name: "complete_task", is_error: true }]);
    expect(result.body.tool_calls[0]!.result).toMatch(/not found/i);
    expect(result.body.reply).toMatch(/^That didn't work \(complete_task\): .*not found/i);
  });
});

describe("every task intent through chat, against the real task tools", () => {
  // One phrasing per intent (English and Roman Urdu), each on the same real task; the router's full
  // table of phrasings is in intent-router.test.ts. Order matters: the task is deleted last.
  const turns: [message: (id: number) => string, tool: string, check: RegExp][] = [
    [() => "add a task to buy bread tomorrow at 10am", "add_task", /^Created #\d+ \[ \] buy bread — due /],
    [() => "every monday team meeting", "add_task", /repeats weekly/],
    [() => "mere tasks dikhao", "list_tasks", /buy bread/],
    [() => "find tasks about bread", "search_tasks", /buy bread/],
    [(id) => `task ${id} ki priority high karo`, "set_priority", /^Priority set: #\d+ \[ \] buy bread — high priority/],
    [(id) => `tag task ${id} with home, food`, "add_tags", /^Tags now: home, food on/],
    [(id) => `remind me about task ${id} tomorrow at 9am`, "schedule_reminder", /^Reminder #\d+ set for /],
    [(id) => `rename task ${id} to Buy brown bread`, "update_task", /^Updated #\d+ \[ \] Buy brown bread/],
    [() => "show recurring tasks", "get_recurring_tasks", /team meeting/],
    [(id) => `task ${id} ho gaya`, "complete_task", /Buy brown bread/],
    [() => "how am I doing", "analytics_summary", /^2 tasks: 1 completed, 1 pending/],
    [(id) => `delete task ${id}`, "delete_task", /^Deleted #\d+ \[x\] Buy brown bread/],
  ];

  it("calls each tool with arguments its schema accepts and reports the real result", async () => {
    const user = await createUser();
    let id = 0;
    for (const [message, tool, check] of turns) {
      const res = await chat(user, message(id));
      expect(res.status, message(id)).toBe(200);
      expect(
        res.body.tool_calls.map((call) => call.name),
        message(id),
      ).toEqual([tool]);
      const call = res.body.tool_calls[0]!;
      expect(call.is_error, `${message(id)}: ${call.result}`).toBe(false);
      expect(call.result, message(id)).toMatch(check);
      if (id === 0) id = Number(/#(\d+)/.exec(call.result)![1]);
    }
    expect((await api<{ tasks: { title: string }[] }>(user, "GET", "/api/tasks")).body.tasks.map((t) => t.title)).toEqual(["team meeting"]);
  });
});

describe("POST /api/chat validation", () => {
  const cases: { name: string; raw?: string; body?: unknown; headers?: Record<string, string>; status: number; message: RegExp }[] = [
    { name: "empty message", body: { message: "" }, status: 400, message: /message: must not be empty/ },
    { name: "blank message", body: { message: "   \n " }, status: 400, message: /message: must not be empty/ },
    { name: "too long", body: { message: "x".repeat(4001) }, status: 400, message: /message: must be at most 4000 characters/ },
    { name: "wrong type", body: { message: 42 }, status: 400, message: /message: must be a string/ },
    { name: "missing", body: {}, status: 400, message: /message: is required/ },
    { name: "not an object", body: ["hi"], status: 400, message: /Invalid input/ },
    {
      name: "bad time zone",
      body: { message: "hi", time_zone: "Mars/Olympus" },
      status: 400,
      message: /time_zone: must be an IANA time zone/,
    },
    { name: "not JSON", raw: "{message: hi", headers: { "content-type": "application/json" }, status: 400, message: /not valid JSON/ },
    {
      name: "wrong content type",
      raw: "message=hi",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      status: 400,
      message: /Content-Type must be application\/json/,
    },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.status} naming the problem`, async () => {
      const user = await createUser();
      const res = await api<ErrorBody>(user, "POST", "/api/chat", {
        ...(c.body !== undefined ? { body: c.body } : {}),
        ...(c.raw !== undefined ? { raw: c.raw } : {}),
        ...(c.headers ? { headers: c.headers } : {}),
      });
      expect(res.status).toBe(c.status);
      expect(res.body.error.code).toBe("invalid_input");
      expect(res.body.error.message).toMatch(c.message);
    });
  }

  it("exactly 4000 characters is accepted", async () => {
    const user = await createUser();
    const res = await chat(user, `remember ${"x".repeat(3991)}`);
    expect(res.status).toBe(200);
  });

  it("needs a bearer token", async () => {
    const res = await api<ErrorBody>(undefined, "POST", "/api/chat", { body: { message: "hi" } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
    expect((await api<ErrorBody>(undefined, "GET", "/api/chat")).status).toBe(401);
    expect((await api<ErrorBody>(undefined, "DELETE", "/api/chat")).status).toBe(401);
  });
});

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event = /^event: (.+)$/m.exec(block)?.[1] ?? "";
      const data = /^data: (.+)$/m.exec(block)?.[1] ?? "null";
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

describe("POST /api/chat as a stream (Accept: text/event-stream)", () => {
  it("sends tool_call, tool_result, reply, done in that order; done carries the JSON answer", async () => {
    const user = await createUser();
    const res = await workerFetch("http://localhost/api/chat", {
      method: "POST",
      headers: { ...user.headers, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "add a task to buy milk tomorrow", time_zone: KARACHI }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(["tool_call", "tool_result", "reply", "done"]);
    const [call, result, reply, done] = events as [SseEvent, SseEvent, SseEvent, SseEvent];
    expect(call.data).toMatchObject({ name: "add_task", arguments: { title: "buy milk" } });
    expect(result.data).toMatchObject({ id: call.data["id"], name: "add_task", is_error: false });
    expect(String(result.data["result"])).toMatch(/^Created #\d+ \[ \] buy milk/);
    expect(reply.data["text"]).toMatch(/^Done\./);
    expect(done.data["reply"]).toBe(reply.data["text"]);
    expect(done.data["model"]).toBe("local-intent-router");
    expect(done.data["tool_calls"]).toEqual([
      { ...call.data, is_error: false, duration_ms: result.data["duration_ms"], result: result.data["result"] },
    ]);
    // And the task is really there.
    const tasks = await api<{ tasks: { title: string }[] }>(user, "GET", "/api/tasks");
    expect(tasks.body.tasks.map((t) => t.title)).toEqual(["buy milk"]);
  });

  it("a reply without tools streams reply then done", async () => {
    const user = await createUser();
    const res = await workerFetch("http://localhost/api/chat", {
      method: "POST",
      headers: { ...user.headers, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "hello" }),
    });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(["reply", "done"]);
    expect(events[0]!.data["text"]).toMatch(/^Hi! I can help with your tasks/);
  });

  it("validation errors are plain JSON 400s, not streams", async () => {
    const user = await createUser();
    const res = await workerFetch("http://localhost/api/chat", {
      method: "POST",
      headers: { ...user.headers, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "" }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.message).toMatch(/message: must not be empty/);
  });
});

describe("GET and DELETE /api/chat: the stored conversation", () => {
  it("keeps each user's turns in order with their tool calls, and DELETE forgets them", async () => {
    const user = await createUser();
    const other = await createUser();
    await chat(user, "add a task to read a book");
    await chat(user, "hello");
    await chat(other, "show my tasks");
    const history = await api<{ messages: HistoryMessage[] }>(user, "GET", "/api/chat");
    expect(history.status).toBe(200);
    const messages = history.body.messages;
    expect(messages.map((m) => [m.role, m.text.split("\n")[0]])).toEqual([
      ["user", "add a task to read a book"],
      ["assistant", "Done."],
      ["user", "hello"],
      ["assistant", expect.stringMatching(/^Hi! I can help/)],
    ]);
    expect(messages[1]!.tool_calls).toMatchObject([{ name: "add_task", is_error: false, arguments: { title: "read a book" } }]);
    expect(messages[3]!.tool_calls).toEqual([]);
    expect(messages[0]!.tool_calls).toBeUndefined();
    for (const m of messages) expect(Number.isNaN(Date.parse(m.at))).toBe(false);

    const removed = await workerFetch("http://localhost/api/chat", { method: "DELETE", headers: user.headers });
    expect(removed.status).toBe(204);
    expect((await api<{ messages: HistoryMessage[] }>(user, "GET", "/api/chat")).body.messages).toEqual([]);
    // The other user's conversation is untouched.
    expect((await api<{ messages: HistoryMessage[] }>(other, "GET", "/api/chat")).body.messages).toHaveLength(2);
    // The task made through chat stays: forgetting the chat is not deleting tasks.
    expect((await api<{ tasks: unknown[] }>(user, "GET", "/api/tasks")).body.tasks).toHaveLength(1);
  });

  it("an empty conversation is an empty list", async () => {
    const user = await createUser();
    const history = await api<{ messages: HistoryMessage[] }>(user, "GET", "/api/chat");
    expect(history.body).toEqual({ messages: [] });
  });
});

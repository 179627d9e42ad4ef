import { describe, expect, it } from "vitest";
import { callOk, connect } from "../../helpers/mcp";
import { addTask, callError, callWithText, type Task, uniqueWord } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

type Ranked = Task & { rank: number };

async function session() {
  const user = await createUser();
  return { user, client: await connect("tasks", user.token) };
}

describe("search_tasks", () => {
  it("ranks tasks matching more of the words first", async () => {
    const { client } = await session();
    const [alpha, beta] = [uniqueWord(), uniqueWord()];
    // Unrelated tasks keep each search word rare, so bm25 weighs it (a word in over half the rows scores ~0).
    for (let i = 0; i < 6; i++) await addTask(client, { title: `filler ${uniqueWord()}` });
    const one = await addTask(client, { title: `Notes on ${alpha}` });
    const both = await addTask(client, { title: `Plan ${alpha} and ${beta}` });
    const other = await addTask(client, { title: "Misc", description: `Only ${beta} here` });

    const { tasks, count } = await callOk<{ tasks: Ranked[]; count: number }>(client, "search_tasks", { query: `${alpha} ${beta}` });

    expect(count).toBe(3);
    expect(tasks[0]!.id).toBe(both.id);
    expect(tasks.map((task) => task.id).sort()).toEqual([one.id, both.id, other.id].sort());
    expect(tasks[0]!.rank).toBeLessThan(tasks[1]!.rank);
    expect(tasks[1]!.rank).toBeLessThanOrEqual(tasks[2]!.rank);
  });

  it("matches word prefixes and word forms", async () => {
    const { client } = await session();
    const word = uniqueWord();
    const meeting = await addTask(client, { title: `Weekly ${word}meeting` });
    await addTask(client, { title: "Unrelated" });

    for (const query of [`${word}meet`, `${word}meetings`, `${word.toUpperCase()}MEE`]) {
      const { tasks } = await callOk<{ tasks: Ranked[] }>(client, "search_tasks", { query });
      expect(
        tasks.map((task) => task.id),
        query,
      ).toEqual([meeting.id]);
    }
    const none = await callWithText<{ tasks: Ranked[] }>(client, "search_tasks", { query: `${word}x` });
    expect(none.data.tasks).toEqual([]);
    expect(none.text).toBe(`No tasks match "${word}x".`);
  });

  it("filters by priority and tags", async () => {
    const { client } = await session();
    const word = uniqueWord();
    const high = await addTask(client, { title: `${word} high`, priority: "high", tags: ["a", "b"] });
    await addTask(client, { title: `${word} low`, priority: "low", tags: ["a"] });

    const byPriority = await callOk<{ tasks: Ranked[] }>(client, "search_tasks", { query: word, priority: "high" });
    expect(byPriority.tasks.map((task) => task.id)).toEqual([high.id]);
    const byTags = await callOk<{ tasks: Ranked[] }>(client, "search_tasks", { query: word, tags: "b, a" });
    expect(byTags.tasks.map((task) => task.id)).toEqual([high.id]);
    const limited = await callOk<{ tasks: Ranked[] }>(client, "search_tasks", { query: word, limit: 1 });
    expect(limited.tasks).toHaveLength(1);
  });

  it("follows title changes and forgets deleted tasks", async () => {
    const { client } = await session();
    const [before, after] = [uniqueWord(), uniqueWord()];
    const task = await addTask(client, { title: before, description: "same" });
    await callOk(client, "update_task", { task_id: task.id, title: after });

    expect((await callOk<{ count: number }>(client, "search_tasks", { query: before })).count).toBe(0);
    expect((await callOk<{ count: number }>(client, "search_tasks", { query: after })).count).toBe(1);
    await callOk(client, "delete_task", { task_id: task.id });
    expect((await callOk<{ count: number }>(client, "search_tasks", { query: after })).count).toBe(0);
  });

  it("treats FTS syntax in the query as plain words", async () => {
    const { client } = await session();
    const word = uniqueWord();
    const task = await addTask(client, { title: `${word} report` });
    for (const query of [`"${word}`, `${word} OR NOT (`, `title:${word}*`, `${word} AND -report NEAR`]) {
      const { tasks } = await callOk<{ tasks: Ranked[] }>(client, "search_tasks", { query });
      expect(
        tasks.map((found) => found.id),
        query,
      ).toEqual([task.id]);
    }
  });

  it("rejects a query of only punctuation with a clear error", async () => {
    const { client } = await session();
    expect(await callError(client, "search_tasks", { query: "?!… -- ***" })).toBe("invalid_input: query: contains no searchable words");
  });
});

describe("analytics_summary", () => {
  it("reports zeros for a user without tasks", async () => {
    const { client } = await session();
    const stats = await callOk(client, "analytics_summary");
    expect(stats).toEqual({
      total: 0,
      completed: 0,
      pending: 0,
      completion_rate: 0,
      overdue: 0,
      by_priority: { high: 0, medium: 0, low: 0, none: 0 },
    });
  });

  it("counts totals, completion rate, overdue (pending and past due only) and priorities", async () => {
    const { client } = await session();
    await addTask(client, { title: "overdue", priority: "high", due_date: "2020-01-01" });
    await addTask(client, { title: "also overdue", priority: "high", due_date: "2021-06-01T12:00:00Z" });
    await addTask(client, { title: "future", priority: "medium", due_date: "2099-01-01" });
    const donePastDue = await addTask(client, { title: "done late", priority: "low", due_date: "2020-01-01" });
    await addTask(client, { title: "undated" });
    const done = await addTask(client, { title: "done", priority: "none" });
    await callOk(client, "complete_task", { task_id: donePastDue.id });
    await callOk(client, "complete_task", { task_id: done.id });

    const { data, text } = await callWithText(client, "analytics_summary");

    expect(data).toEqual({
      total: 6,
      completed: 2,
      pending: 4,
      completion_rate: 0.3333,
      overdue: 2,
      by_priority: { high: 2, medium: 1, low: 1, none: 2 },
    });
    expect(text).toBe("6 tasks: 2 completed, 4 pending (33% done).\nOverdue: 2.\nBy priority: high 2, medium 1, low 1, none 2.");
  });
});

/**
 * Numbers in REST paths and query strings are read strictly: plain decimal digits, nothing else.
 * `Number()` would read `0x10` as 16 and `+1`, ` 1`, `1\n`, `1e0` as 1, so a request could name a
 * task by a spelling its client never meant; each such spelling is a 400 naming the field, and
 * the task it would have hit is untouched.
 */
import { describe, expect, it } from "vitest";
import { api, type ErrorBody } from "../../helpers/rest";
import { registerTasksSource } from "../../helpers/gateway";
import { createUser, type TestUser } from "../../helpers/users";

/** Spellings of `id` that are not its canonical decimal form. */
function looseSpellings(id: number): string[] {
  return [
    `0x${id.toString(16)}`,
    `0o${id.toString(8)}`,
    `0b${id.toString(2)}`,
    `+${id}`,
    `%20${id}`,
    `${id}%20`,
    `${id}%0A`,
    `%09${id}`,
    `${id}e0`,
    `${id}.0`,
    `0${id}`,
    `${id}_`,
  ];
}

const HUGE = ["9007199254740992", "99999999999999999999", "9".repeat(40), "Infinity", "NaN", "-1", "0"];

async function expectRefused(user: TestUser, method: string, path: string, field: string, body?: unknown): Promise<void> {
  const res = await api<ErrorBody>(user, method, path, body === undefined ? {} : { body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body.error.code).toBe("invalid_input");
  expect(res.body.error.details).toEqual({ field });
  expect(res.body.error.message).toContain(`${field}:`);
}

describe("task ids in REST paths", () => {
  const routes: [string, string, unknown?][] = [
    ["GET", ""],
    ["PATCH", "", { title: "changed" }],
    ["POST", "/complete"],
    ["POST", "/tags", { tags: ["x"] }],
    ["GET", "/reminders"],
    ["POST", "/reminders", { reminder_time: "2099-01-01T00:00:00Z" }],
    ["DELETE", ""],
  ];

  it("refuses every loose spelling of a real task's id on every route, and the task is untouched", async () => {
    const user = await createUser();
    // Enough tasks that the hex, octal and binary spellings of the last id name a real task too.
    for (let i = 0; i < 3; i++) await api(user, "POST", "/api/tasks", { body: { title: `t${i}` } });
    const created = await api<{ task: { id: number; updated_at: string } }>(user, "POST", "/api/tasks", { body: { title: "target" } });
    const { id } = created.body.task;
    for (const spelling of looseSpellings(id)) {
      for (const [method, suffix, body] of routes) await expectRefused(user, method, `/api/tasks/${spelling}${suffix}`, "task_id", body);
    }
    const after = await api<{ task: { title: string; updated_at: string } }>(user, "GET", `/api/tasks/${id}`);
    expect(after.body.task).toMatchObject({ title: "target", updated_at: created.body.task.updated_at });
  });

  it.each(HUGE)("refuses %s", async (spelling) => {
    const user = await createUser();
    await expectRefused(user, "GET", `/api/tasks/${spelling}`, "task_id");
  });

  it("still reads the plain decimal id", async () => {
    const user = await createUser();
    const created = await api<{ task: { id: number } }>(user, "POST", "/api/tasks", { body: { title: "plain" } });
    expect((await api(user, "GET", `/api/tasks/${created.body.task.id}`)).status).toBe(200);
  });
});

describe("source ids in REST paths", () => {
  it("refuses loose spellings on every /api/sources/{source_id} route", async () => {
    const user = await createUser();
    expect((await registerTasksSource(user, user)).status).toBe(201);
    const id = (await api<{ sources: { id: number }[] }>(user, "GET", "/api/sources")).body.sources[0]!.id;
    const routes: [string, string, unknown?][] = [
      ["GET", ""],
      ["PATCH", "", { enabled: false }],
      ["POST", "/refresh"],
      ["GET", "/health"],
      ["DELETE", ""],
    ];
    for (const spelling of [...looseSpellings(id), ...HUGE]) {
      for (const [method, suffix, body] of routes)
        await expectRefused(user, method, `/api/sources/${spelling}${suffix}`, "source_id", body);
    }
    expect((await api(user, "GET", `/api/sources/${id}`)).status).toBe(200);
  });
});

describe("numbers in query strings", () => {
  it.each(["/api/tasks", "/api/tasks/search?query=x&", "/api/documents"])("%s refuses loose spellings of limit", async (path) => {
    const user = await createUser();
    const join = path.includes("?") ? "" : "?";
    for (const spelling of ["0x10", "+5", "%205", "5%0A", "1e1", "05", "5.0"]) {
      await expectRefused(user, "GET", `${path}${join}limit=${spelling}`, "limit");
    }
    expect((await api(user, "GET", `${path}${join}limit=5`)).status).toBe(200);
  });
});

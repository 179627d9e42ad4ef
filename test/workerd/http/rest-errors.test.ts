/** Every 4xx of the REST API is `{ error: { code, message } }` naming the field, never a stack, never a partial write. */
import { describe, expect, it } from "vitest";
import { api, type ApiResponse, type ErrorBody } from "../../helpers/rest";
import { countRows } from "../../helpers/db";
import { MISSING_ID } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

function expectError(res: ApiResponse<ErrorBody>, status: number, code: string, message: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.message).toMatch(message);
  expect(JSON.stringify(res.body)).not.toMatch(/\\n\s+at /);
}

describe("REST request bodies", () => {
  it.each([
    [
      "invalid JSON",
      { raw: '{"title": "x",', headers: { "content-type": "application/json" } },
      400,
      "invalid_input",
      /^Request body is not valid JSON/,
    ],
    [
      "a wrong content type",
      { raw: '{"title":"x"}', headers: { "content-type": "text/plain" } },
      400,
      "invalid_input",
      /^Content-Type must be application\/json$/,
    ],
    ["no content type", { raw: '{"title":"x"}' }, 400, "invalid_input", /^Content-Type must be application\/json$/],
    ["an empty body", { raw: "", headers: { "content-type": "application/json" } }, 400, "invalid_input", /^Request body is empty/],
    ["a body over 64 KiB", { body: { title: "t", description: "x".repeat(65 * 1024) } }, 413, "payload_too_large", /limit of 65536 bytes/],
  ])("answers %s with a clear error and creates nothing", async (_name, options, status, code, message) => {
    const user = await createUser();
    expectError(await api<ErrorBody>(user, "POST", "/api/tasks", options), status, code, message);
    expect(await countRows("tasks", user.id)).toBe(0);
  });

  it.each([
    [{ title: 5 }, "title", /expected string/],
    [{}, "title", /expected string, received undefined/],
    [{ title: "x".repeat(201) }, "title", /at most 200 characters/],
    [{ title: "t", priority: "urgent" }, "priority", /expected one of/],
    [{ title: "t", recurrence_pattern: "yearly" }, "recurrence_pattern", /expected one of/],
    [{ title: "t", due_date: "01/02/2027" }, "due_date", /ISO 8601/],
    [{ title: "t", tags: "a,b" }, "tags", /expected array/],
    [["title"], "input", /expected object/],
  ])("rejects %j naming %s", async (body, field, says) => {
    const user = await createUser();
    const res = await api<ErrorBody>(user, "POST", "/api/tasks", { body });
    expectError(res, 400, "invalid_input", says);
    expect(res.body.error.message).toContain(`${field}:`);
    if (field !== "input") expect(res.body.error.details).toEqual({ field });
    expect(await countRows("tasks", user.id)).toBe(0);
  });
});

describe("REST query strings and paths", () => {
  it.each([
    ["/api/tasks?limit=0", "limit"],
    ["/api/tasks?limit=101", "limit"],
    ["/api/tasks?limit=ten", "limit"],
    ["/api/tasks?status=done", "status"],
    ["/api/tasks?sort_by=random", "sort_by"],
    ["/api/tasks?priority=urgent", "priority"],
    ["/api/tasks?cursor=garbage", "cursor"],
    ["/api/tasks/search", "query"],
    ["/api/tasks/search?query=%3F!%3F", "query"],
    ["/api/tasks/search?query=a&limit=0", "limit"],
    ["/api/tasks/recurring?pattern=hourly", "pattern"],
    ["/api/tasks/abc", "task_id"],
    ["/api/tasks/0", "task_id"],
    ["/api/tasks/1.5", "task_id"],
    ["/api/tasks/-4/reminders", "task_id"],
  ])("GET %s is a 400 naming %s", async (path, field) => {
    const user = await createUser();
    const res = await api<ErrorBody>(user, "GET", path);
    expectError(res, 400, "invalid_input", new RegExp(`\\b${field}\\b`));
    expect(res.body.error.details).toEqual({ field });
  });

  it("answers an unknown route, or a known path with the wrong method, with a 404 JSON body", async () => {
    const user = await createUser();
    expectError(await api<ErrorBody>(user, "GET", "/api/projects"), 404, "not_found", /^No route for GET \/api\/projects$/);
    expectError(await api<ErrorBody>(user, "PUT", "/api/tasks/1", { body: { title: "x" } }), 404, "not_found", /^No route for PUT/);
    expectError(await api<ErrorBody>(undefined, "GET", "/nothing-here"), 404, "not_found", /^No route for GET \/nothing-here$/);
  });
});

describe("REST domain errors", () => {
  it("not found for every route on an unknown id, with no write", async () => {
    const user = await createUser();
    const calls: [string, string, Record<string, unknown>?][] = [
      ["GET", ""],
      ["PATCH", "", { title: "x" }],
      ["DELETE", ""],
      ["POST", "/complete"],
      ["POST", "/tags", { tags: ["x"] }],
      ["GET", "/reminders"],
      ["POST", "/reminders", { reminder_time: "2099-01-01T00:00:00Z" }],
    ];
    for (const [method, suffix, body] of calls) {
      const res = await api<ErrorBody>(user, method, `/api/tasks/${MISSING_ID}${suffix}`, body ? { body } : {});
      expectError(res, 404, "not_found", new RegExp(`^Task ${MISSING_ID} not found$`));
    }
    expect(await countRows("reminders", user.id)).toBe(0);
    expect(await countRows("outbox", user.id)).toBe(0);
  });

  it("PATCH with nothing to change, bad tags, and a reminder in the past are 400s", async () => {
    const user = await createUser();
    const created = await api<{ task: { id: number } }>(user, "POST", "/api/tasks", { body: { title: "t" } });
    const id = created.body.task.id;

    expectError(await api<ErrorBody>(user, "PATCH", `/api/tasks/${id}`, { body: {} }), 400, "invalid_input", /^Nothing to update/);
    expectError(
      await api<ErrorBody>(user, "POST", `/api/tasks/${id}/tags`, { body: { tags: [" "] } }),
      400,
      "invalid_input",
      /tags: give at least one non-empty tag/,
    );
    const past = await api<ErrorBody>(user, "POST", `/api/tasks/${id}/reminders`, { body: { reminder_time: "2020-01-01T00:00:00Z" } });
    expectError(past, 400, "invalid_input", /^reminder_time: must be in the future$/);
    expect(past.body.error.details).toEqual({ field: "reminder_time" });
    expect(await countRows("reminders", user.id)).toBe(0);
    expect(await countRows("outbox", user.id)).toBe(1);
  });
});

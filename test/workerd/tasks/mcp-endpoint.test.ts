/** The raw /mcp/tasks endpoint under bodies no MCP client would send: a clean 4xx, never a 500 or a stack. */
import { describe, expect, it } from "vitest";
import { ERAS, workerFetch } from "../../helpers/mcp";
import { countRows } from "../../helpers/db";
import { createUser, type TestUser } from "../../helpers/users";

function post(user: TestUser, era: string, body: string): Promise<Response> {
  return workerFetch("http://localhost/mcp/tasks", {
    method: "POST",
    headers: {
      ...user.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": era,
    },
    body,
  });
}

function addTaskCall(title: string): Record<string, unknown> {
  return { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add_task", arguments: { title } } };
}

describe.each(ERAS)("raw POST /mcp/tasks (%s)", (era) => {
  it("answers invalid JSON with a JSON-RPC parse error", async () => {
    const user = await createUser();
    const res = await post(user, era, '{"jsonrpc":"2.0","id":1,"method":"tools/call",');
    const text = await res.text();

    expect(res.status).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    expect(text).not.toMatch(/\n\s+at /);
    expect(await countRows("tasks", user.id)).toBe(0);
  });

  it("answers JSON that is not JSON-RPC with a 4xx", async () => {
    const user = await createUser();
    for (const body of ['{"hello":"world"}', "[]", "42", "null"]) {
      const res = await post(user, era, body);
      const text = await res.text();
      expect(res.status, body).toBeGreaterThanOrEqual(400);
      expect(res.status, body).toBeLessThan(500);
      expect(text, body).not.toMatch(/\n\s+at /);
    }
  });

  it("answers a body over 1 MiB with 413 before running anything", async () => {
    const user = await createUser();
    const res = await post(user, era, JSON.stringify(addTaskCall("x".repeat(1024 * 1024))));
    const body = await res.json();

    expect(res.status).toBe(413);
    expect(body).toEqual({ error: { code: "payload_too_large", message: "Request body exceeds the limit of 1048576 bytes" } });
    expect(await countRows("tasks", user.id)).toBe(0);
  });
});

/**
 * The JSON-RPC envelope, on every MCP endpoint and in every protocol era, on the fast paths and
 * the SDK path alike:
 * - a numeric id must survive JSON exactly (an integer within ±(2^53−1)); a 5,000-digit id parsed
 *   to Infinity and was echoed as `null`. Such a request is refused as Invalid Request, id null,
 *   and nothing runs.
 * - batches were removed in 2025-06-18: refused under it and later revisions; 2025-03-26 (or no
 *   MCP-Protocol-Version header, which means 2025-03-26) keeps them.
 */
import { describe, expect, it } from "vitest";
import { workerFetch } from "../../helpers/mcp";
import { countRows } from "../../helpers/db";
import { createUser } from "../../helpers/users";
import { envelope, type JsonRpcResponse, rpcResponse } from "../../helpers/rpc";

const ENDPOINTS = ["/mcp/tasks", "/mcp/rag", "/mcp/thinking", "/mcp"];
const NO_BATCH_VERSIONS = ["2025-06-18", "2025-11-25", "2026-07-28"];
const BATCH_VERSIONS = ["2025-03-26", undefined];

/** A request message of `version`, its id written into the JSON text as given (so it can be any number literal). */
function message(version: string | undefined, idLiteral: string, method: string, params: Record<string, unknown> = {}): string {
  const withMeta = version === "2026-07-28" ? { ...params, _meta: envelope() } : params;
  return `{"jsonrpc":"2.0","id":${idLiteral},"method":${JSON.stringify(method)},"params":${JSON.stringify(withMeta)}}`;
}

function post(path: string, token: string, version: string | undefined, body: string): Promise<Response> {
  return workerFetch(`http://localhost${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(version ? { "mcp-protocol-version": version } : {}),
    },
    body,
  });
}

const OUT_OF_RANGE_IDS = ["1".repeat(5000), "12345678901234567", "-9007199254740993", "1.5", "1e400"];

describe.each(ENDPOINTS)("request ids on %s", (path) => {
  it.each([...NO_BATCH_VERSIONS, ...BATCH_VERSIONS])(
    "an id JSON cannot carry exactly is Invalid Request, id null (%s)",
    async (version) => {
      const user = await createUser();
      for (const id of OUT_OF_RANGE_IDS) {
        const res = await post(path, user.token, version, message(version, id, "tools/list"));
        expect(res.status, id.slice(0, 20)).toBe(400);
        const body = (await res.json()) as JsonRpcResponse;
        expect(body.id).toBeNull();
        expect(body.error?.code).toBe(-32600);
        expect(body.error?.message).toMatch(/\bid\b.*integer between -9007199254740991 and 9007199254740991/);
      }
    },
  );

  it("a tools/call with such an id runs nothing", async () => {
    const user = await createUser();
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const call = message(version, "1".repeat(5000), "tools/call", { name: "add_task", arguments: { title: "never" } });
      expect((await post(path, user.token, version, call)).status).toBe(400);
    }
    expect(await countRows("tasks", user.id)).toBe(0);
  });

  it("string ids and safe integers are echoed exactly", async () => {
    const user = await createUser();
    for (const [literal, echoed] of [
      ['"a-string-id"', "a-string-id"],
      ["9007199254740991", 9007199254740991],
      ["-7", -7],
    ] as const) {
      const res = await post(path, user.token, "2025-06-18", message("2025-06-18", literal, "tools/list"));
      expect(res.status).toBe(200);
      expect((await rpcResponse(res)).id).toBe(echoed);
    }
  });
});

describe.each(ENDPOINTS)("batches on %s", (path) => {
  it.each(NO_BATCH_VERSIONS)("are refused under %s, and nothing in them runs", async (version) => {
    const user = await createUser();
    const batch = `[${message(version, "1", "tools/call", { name: "add_task", arguments: { title: "batched" } })},${message(version, "2", "tools/list")}]`;
    const res = await post(path, user.token, version, batch);
    expect(res.status).toBe(400);
    const body = (await res.json()) as JsonRpcResponse;
    expect(body).toMatchObject({ id: null, error: { code: -32600 } });
    expect(body.error?.message).toMatch(/batch/i);
    expect(await countRows("tasks", user.id)).toBe(0);
  });

  it.each(BATCH_VERSIONS)("are still answered under %s (2025-03-26 allows them)", async (version) => {
    const user = await createUser();
    const res = await post(path, user.token, version, `[${message(version, "1", "tools/list")},${message(version, "2", "ping")}]`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"id":1');
    expect(text).toContain('"id":2');
  });
});

/** The JSON-RPC envelope rules every MCP endpoint applies first (decision 0026). */
import { describe, expect, it } from "vitest";
import { envelope } from "../../workers/mcp/envelope";
import { isRequestId } from "../../workers/mcp/json-rpc";
import { classifyPost } from "../../workers/mcp/post";

function post(body: unknown, version?: string) {
  const headers: Record<string, string> = version ? { "mcp-protocol-version": version } : {};
  const request = new Request("http://localhost/mcp/tasks", { method: "POST", headers });
  return classifyPost(request, JSON.stringify(body));
}

describe("isRequestId", () => {
  it.each([
    ["abc", true],
    ["", true],
    [7, true],
    [-7, true],
    [Number.MAX_SAFE_INTEGER, true],
    [Number.MAX_SAFE_INTEGER + 1, false],
    [1.5, false],
    [Infinity, false],
    [null, false],
    [{}, false],
  ])("%j → %s", (value, ok) => {
    expect(isRequestId(value)).toBe(ok);
  });
});

describe("envelope", () => {
  it("serves a message with a string or safe integer id, and a notification", () => {
    expect(envelope(post({ jsonrpc: "2.0", id: "a", method: "ping" }, "2025-11-25"))).toBeUndefined();
    expect(envelope(post({ jsonrpc: "2.0", id: 12, method: "ping" }, "2025-11-25"))).toBeUndefined();
    expect(envelope(post({ jsonrpc: "2.0", method: "notifications/initialized" }, "2025-11-25"))).toBeUndefined();
  });

  it("refuses an id JSON cannot carry exactly, with id null and a reason", () => {
    const refusal = envelope(post({ jsonrpc: "2.0", id: 12345678901234567, method: "ping" }, "2025-11-25"));
    expect(refusal).toMatchObject({ kind: "error", status: 400, id: null, error: { code: -32600 } });
    expect(refusal?.kind === "error" && refusal.error.message).toMatch(/numeric id must be an integer between/);
  });

  it("refuses batches from 2025-06-18 on, allows them without the header (2025-03-26)", () => {
    const batch = [{ jsonrpc: "2.0", id: 1, method: "ping" }];
    for (const version of ["2025-06-18", "2025-11-25", "2026-07-28"]) {
      const refusal = envelope(post(batch, version));
      expect(refusal, version).toMatchObject({ kind: "error", status: 400 });
      expect(refusal?.kind === "error" && refusal.error.message).toContain(`this request speaks ${version}`);
    }
    expect(envelope(post(batch))).toBeUndefined();
    expect(envelope(post([{ jsonrpc: "2.0", id: 1.5, method: "ping" }]))).toMatchObject({ status: 400 });
  });
});

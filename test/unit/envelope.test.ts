/** The JSON-RPC envelope rules every MCP endpoint applies first (decision 0026). */
import { describe, expect, it } from "vitest";
import { isRequestId, refuseEnvelope } from "../../workers/mcp/envelope";

function post(version?: string): Request {
  return new Request("http://localhost/mcp/tasks", { method: "POST", headers: version ? { "mcp-protocol-version": version } : {} });
}

describe("isRequestId", () => {
  it.each([["abc", true], ["", true], [7, true], [-7, true], [Number.MAX_SAFE_INTEGER, true], [Number.MAX_SAFE_INTEGER + 1, false], [1.5, false], [Infinity, false], [null, false], [{}, false]])(
    "%j → %s",
    (value, ok) => {
      expect(isRequestId(value)).toBe(ok);
    },
  );
});

describe("refuseEnvelope", () => {
  it("serves a message with a string or safe integer id, and a notification", () => {
    expect(refuseEnvelope({ jsonrpc: "2.0", id: "a", method: "ping" }, post("2025-11-25"))).toBeUndefined();
    expect(refuseEnvelope({ jsonrpc: "2.0", id: 12, method: "ping" }, post("2025-11-25"))).toBeUndefined();
    expect(refuseEnvelope({ jsonrpc: "2.0", method: "notifications/initialized" }, post("2025-11-25"))).toBeUndefined();
  });

  it("refuses an id JSON cannot carry exactly, with id null and a reason", async () => {
    const refusal = refuseEnvelope({ jsonrpc: "2.0", id: 12345678901234567, method: "ping" }, post("2025-11-25"));
    expect(refusal?.status).toBe(400);
    const body = (await refusal?.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBeNull();
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/numeric id must be an integer between/);
  });

  it("refuses batches from 2025-06-18 on, allows them without the header (2025-03-26)", async () => {
    const batch = [{ jsonrpc: "2.0", id: 1, method: "ping" }];
    for (const version of ["2025-06-18", "2025-11-25", "2026-07-28"]) {
      const refusal = refuseEnvelope(batch, post(version));
      expect(refusal?.status, version).toBe(400);
      expect(((await refusal?.json()) as { error: { message: string } }).error.message).toContain(`this request speaks ${version}`);
    }
    expect(refuseEnvelope(batch, post())).toBeUndefined();
    expect(refuseEnvelope([{ jsonrpc: "2.0", id: 1.5, method: "ping" }], post())?.status).toBe(400);
  });
});

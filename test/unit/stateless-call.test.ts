/**
 * The stateless call closes what its answer may have left open — an SSE stream stays open after
 * the answer until closed — and leaves nothing to close after a plain JSON answer, which it does
 * not close (closing builds an abort error per call on the gateway's hot path).
 */
import { describe, expect, it } from "vitest";
import { callStatelessTool } from "../../workers/mcp-client/stateless-call";

const RESULT = { content: [{ type: "text", text: "done" }] };
const call = { name: "echo", args: {}, timeoutMs: 5_000, clientName: "test" };
const legacy = { protocolVersion: "2025-11-25" };

function idOf(init: RequestInit | undefined): unknown {
  return (JSON.parse(String(init?.body)) as { id: unknown }).id;
}

describe("callStatelessTool (2025-era server without a session)", () => {
  it("answers from a JSON body", async () => {
    const fetch = async (_input: string | URL | Request, init?: RequestInit) =>
      Response.json({ jsonrpc: "2.0", id: idOf(init), result: RESULT });
    expect(await callStatelessTool({ url: "http://upstream.test/mcp", fetch }, legacy, call)).toEqual(RESULT);
  });

  it("ends an SSE answer's stream that the server left open after the answer", async () => {
    let cancelled = false;
    const fetch = async (_input: string | URL | Request, init?: RequestInit) => {
      const event = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: idOf(init), result: RESULT })}\n\n`;
      const signal = init?.signal;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(event));
          // Never closed by the server: only the client's abort or cancel ends it.
          signal?.addEventListener("abort", () => {
            cancelled = true;
            controller.error(signal.reason);
          });
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    expect(await callStatelessTool({ url: "http://upstream.test/mcp", fetch }, legacy, call)).toEqual(RESULT);
    expect(cancelled).toBe(true);
  });
});

/**
 * The answer bound of the outbound MCP client (workers/mcp-client/answer-limit.ts) on its own: how
 * SSE events are measured across chunks, which responses are counted, that the call's marker never
 * leaves, and that a call past its bound fails at once with AnswerTooLargeError. The gateway's paths
 * against real hostile upstreams: test/with-upstreams/gateway/result-bytes.test.ts.
 */
import { describe, expect, it } from "vitest";
import { AnswerLimits, AnswerTooLargeError, EventSize } from "../../workers/mcp-client/answer-limit";

const encode = (text: string) => new TextEncoder().encode(text);

/** The largest event size seen after feeding `chunks` in order. */
function largestEvent(...chunks: string[]): number {
  const size = new EventSize();
  return Math.max(...chunks.map((chunk) => size.add(encode(chunk))));
}

/** A body that yields `chunk` forever (until cancelled), and whether it was cancelled. */
function endless(chunk: string): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  const bytes = encode(chunk);
  const stream = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.enqueue(bytes),
    cancel: () => {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

describe("EventSize", () => {
  it("measures each SSE event apart, whatever the line ends and chunk boundaries", () => {
    expect(largestEvent("data: 12345\n\n")).toBe("data: 12345\n".length);
    expect(largestEvent("data: 1\n\n", "data: 123456789\n\n", "data: 1\n\n")).toBe("data: 123456789\n".length);
    expect(largestEvent("data: 12\r", "\n\r\n", "data: 1\r\n\r\n")).toBe("data: 12\r".length);
    expect(largestEvent("data: 12\r\rdata: 3\r\r")).toBe("data: 12\r".length);
    // One event split over chunks is one event.
    expect(largestEvent("data: 1234", "5678", "9\n", "data: more\n\n")).toBe("data: 123456789\ndata: more\n".length);
  });
});

describe("AnswerLimits", () => {
  it("cuts a bounded call's endless JSON answer, cancels the body and fails the call with its limit", async () => {
    const limits = new AnswerLimits();
    const body = endless("x".repeat(1024));
    const seen: Headers[] = [];
    const fetch = limits.wrap(async (_url, init) => {
      seen.push(new Headers(init?.headers));
      return new Response(body.stream, { headers: { "content-type": "application/json" } });
    });
    const call = limits.call(64 * 1024, async ({ headers, signal }) => {
      const init = { method: "POST", headers: { ...headers, accept: "application/json" }, signal };
      const response = await fetch("http://upstream.test/mcp", init);
      return response.json();
    });
    await expect(call).rejects.toBeInstanceOf(AnswerTooLargeError);
    await expect(call).rejects.toMatchObject({ limitBytes: 64 * 1024, type: "protocol", countsAsFailure: false });
    expect(body.cancelled()).toBe(true);
    expect([...seen[0]!.keys()]).toEqual(["accept"]);
  });

  it("fails the call as soon as the bound passes, even when the reader would wait for more (the SDK's SSE reader)", async () => {
    const limits = new AnswerLimits();
    const sse = { headers: { "content-type": "text/event-stream" } };
    const fetch = limits.wrap(async () => new Response(endless("data: xxxxxxxx").stream, sse));
    const call = limits.call(4096, async ({ headers, signal }) => {
      const response = await fetch("http://upstream.test/mcp", { method: "POST", headers });
      // A reader that swallows the stream's error, as the SDK's SSE handler does, then waits for an answer.
      void response.text().catch(() => undefined);
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("the SDK's own timeout error"))));
    });
    await expect(call).rejects.toBeInstanceOf(AnswerTooLargeError);
  });

  it("leaves responses of requests outside a bounded call alone, and counts GET streams only while one is pending", async () => {
    const limits = new AnswerLimits();
    const fetch = limits.wrap(async () => new Response("y".repeat(10_000), { headers: { "content-type": "text/event-stream" } }));
    expect(await (await fetch("http://upstream.test/mcp", { method: "POST" })).text()).toHaveLength(10_000);
    expect(await (await fetch("http://upstream.test/mcp")).text()).toHaveLength(10_000);
    const call = limits.call(1024, async () => (await fetch("http://upstream.test/mcp")).text());
    await expect(call).rejects.toBeInstanceOf(AnswerTooLargeError);
  });

  it("lets an answer within the bound through unchanged", async () => {
    const limits = new AnswerLimits();
    const fetch = limits.wrap(async () => Response.json({ ok: true }));
    const answer = limits.call(1024, async ({ headers }) => (await fetch("http://upstream.test/mcp", { method: "POST", headers })).json());
    expect(await answer).toEqual({ ok: true });
  });
});

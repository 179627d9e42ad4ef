/**
 * What the Worker's entry does with a body the answer never read (workers/http/unread-body.ts):
 * a small declared body is read to its end, a large or unknown-length one cancelled without
 * reading on, and a body the handler read is left alone.
 */
import { describe, expect, it } from "vitest";
import { DRAIN_MAX_BYTES, finishUnreadBody } from "../../workers/http/unread-body";

/** A body whose reads and cancel are counted. */
function countedBody(chunks: Uint8Array[]): { body: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  let pulls = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[pulls++];
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulled: () => pulls, cancelled: () => cancelled };
}

function post(body: ReadableStream<Uint8Array>, contentLength: number | undefined): Request {
  const headers = contentLength === undefined ? {} : { "content-length": String(contentLength) };
  return new Request("https://mcp-edge.test/mcp", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

describe("a body the answer never read", () => {
  it("is read to its end when it declares a small length", async () => {
    const counted = countedBody([new Uint8Array(10), new Uint8Array(10)]);
    const request = post(counted.body, 20);
    await finishUnreadBody(request);
    expect(request.bodyUsed).toBe(true);
    expect(counted.pulled()).toBe(3);
    expect(counted.cancelled()).toBe(false);
  });

  it("is cancelled, not read, when it declares more than the limit", async () => {
    const counted = countedBody([new Uint8Array(10)]);
    await finishUnreadBody(post(counted.body, DRAIN_MAX_BYTES + 1));
    expect(counted.cancelled()).toBe(true);
    expect(counted.pulled()).toBe(0);
  });

  it("is cancelled, not read, when its length is unknown (a slow client could stretch it)", async () => {
    const counted = countedBody([new Uint8Array(10)]);
    await finishUnreadBody(post(counted.body, undefined));
    expect(counted.cancelled()).toBe(true);
    expect(counted.pulled()).toBe(0);
  });

  it("is left alone once the handler read it, and a request without a body is fine", async () => {
    const counted = countedBody([new Uint8Array(10)]);
    const request = post(counted.body, 10);
    await request.arrayBuffer();
    const pulls = counted.pulled();
    await finishUnreadBody(request);
    expect(counted.pulled()).toBe(pulls);
    expect(counted.cancelled()).toBe(false);
    await expect(finishUnreadBody(new Request("https://mcp-edge.test/health"))).resolves.toBeUndefined();
  });
});

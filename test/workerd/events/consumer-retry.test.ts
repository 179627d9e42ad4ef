/**
 * When D1 fails, the consumer acks nothing and asks for the whole batch again, so the queue's
 * retries (and finally its DLQ) take over. The failure is real: audit_log is renamed away for
 * the first delivery. Kept in its own file because it changes the schema of this file's D1.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auditCount } from "../../helpers/db";
import { syntheticEvent } from "../../helpers/events";
import { deliver, EVENTS_QUEUE } from "../../helpers/queue";

async function whileAuditLogIsGone<T>(run: () => Promise<T>): Promise<T> {
  await env.DB.exec("ALTER TABLE audit_log RENAME TO audit_log_unavailable");
  try {
    return await run();
  } finally {
    await env.DB.exec("ALTER TABLE audit_log_unavailable RENAME TO audit_log");
  }
}

describe("events consumer when D1 fails", () => {
  it("retries every message of the batch and acks none; the retry then records it", async () => {
    const event = syntheticEvent();
    const messages = [
      { id: "retry-1", body: event },
      { id: "retry-2", body: { not: "an event" } },
    ];

    const failed = await whileAuditLogIsGone(() => deliver(EVENTS_QUEUE, messages));

    expect(failed.explicitAcks).toEqual([]);
    expect(failed.retryMessages.map((message) => message.msgId).sort()).toEqual(["retry-1", "retry-2"]);
    const retried = await deliver(EVENTS_QUEUE, messages);
    expect(retried.explicitAcks.sort()).toEqual(["retry-1", "retry-2"]);
    expect(await auditCount(event.event_id)).toBe(1);
  });
});

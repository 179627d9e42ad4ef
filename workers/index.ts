/**
 * The Worker's entry point: HTTP, queue consumers and the cron trigger. A new isolate evaluates
 * this module and what it imports statically before anything else, so the queue and cron work is
 * imported when a batch or a trigger first arrives, and the app imports its areas on first use.
 */
import { createApp } from "./app";
import { finishUnreadBody } from "./http/unread-body";

export { RagGate } from "../durable-objects/rag-gate.do";
export { GatewaySource } from "../durable-objects/gateway-source.do";
export { UpstreamRefreshLease } from "../durable-objects/upstream-refresh-lease.do";
export { GatewayInventory } from "./gateway/discovery/inventory.entrypoint";
export { ThinkingLog } from "../durable-objects/thinking.do";
export { UserBookmark } from "../durable-objects/user-bookmark.do";
export { AgentMcp } from "./agent-mcp";

const app = createApp();

export default {
  async fetch(request, env, ctx) {
    const response = await app.fetch(request, env, ctx);
    // A refusal answered before the body was read: finish the body first (why: http/unread-body.ts).
    await finishUnreadBody(request);
    return response;
  },

  async queue(batch, env) {
    const [{ openDb }, { consumeDeadLetters, consumeEvents }, { parseQueueEvent }] = await Promise.all([
      import("./lib/db"),
      import("./events/events.consumer"),
      import("./queue-events"),
    ]);
    const db = openDb(env.DB);
    if (batch.queue.endsWith("-dlq")) await consumeDeadLetters(db, batch.queue, batch.messages);
    else await consumeEvents(db, batch.queue, batch.messages, parseQueueEvent);
  },

  async scheduled(_controller, env, ctx) {
    const [
      { openDb },
      { log },
      { queueEventSink },
      { relayPendingEvents },
      { rearmRediscoveryAlarms },
      { parseQueueEvent },
      { fireDueReminders },
      { purgeExpiredOAuthData },
    ] = await Promise.all([
      import("./lib/db"),
      import("./lib/log"),
      import("./events/event-sink"),
      import("./events/outbox.relay"),
      import("./gateway/discovery/rediscovery.cron"),
      import("./queue-events"),
      import("./tasks/reminders.cron"),
      import("./auth/oauth-purge.cron"),
    ]);
    const db = openDb(env.DB);
    const events = await fireDueReminders(db);
    queueEventSink(env.EVENTS, (promise) => ctx.waitUntil(promise)).publish(events);
    const relayed = await relayPendingEvents(db, env.EVENTS, parseQueueEvent);
    // Rediscovery runs from each source's own alarm; the cron only re-arms sources missing one.
    const sources = await rearmRediscoveryAlarms(db, env);
    // Last, and on its own: a KV hiccup in the OAuth clean-up must not hold up reminders or the relay.
    const purged = await purgeExpiredOAuthData(env).catch((error: unknown) => {
      log.error("oauth purge failed", { error: error instanceof Error ? error.message : String(error) });
      return { grantsPurged: 0, tokensPurged: 0 };
    });
    // Bounded storage: never throws (a failure is logged), so it can hold up nothing else.
    const { runRetention } = await import("./events/retention.cron");
    await runRetention(db, env);
    const sourcesWork = sources.rearmed > 0 || sources.failed > 0;
    if (events.length > 0 || relayed.sent > 0 || relayed.failed > 0 || sourcesWork || purged.grantsPurged > 0 || purged.tokensPurged > 0) {
      log.info("cron", {
        reminders_due: events.length,
        relayed: relayed.sent,
        relay_failed: relayed.failed,
        sources_rearmed: sources.rearmed,
        sources_rearm_failed: sources.failed,
        oauth_grants_purged: purged.grantsPurged,
        oauth_tokens_purged: purged.tokensPurged,
      });
    }
  },
} satisfies ExportedHandler<Env>;

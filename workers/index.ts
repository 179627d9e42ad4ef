/** The Worker's entry point: HTTP, queue consumers and the cron trigger. */
import { createApp } from "./app";
import { purgeExpiredOAuthData } from "./auth/oauth-purge.cron";
import { consumeDeadLetters, consumeEvents } from "./events/events.consumer";
import { queueEventSink } from "./events/event-sink";
import { relayPendingEvents } from "./events/outbox.relay";
import { rediscoverSources } from "./gateway/rediscovery.cron";
import { openDb } from "./lib/db";
import { log } from "./lib/log";
import { parseQueueEvent } from "./queue-events";
import { fireDueReminders } from "./tasks/reminders.cron";

export { RagGate } from "../durable-objects/rag-gate.do";
export { GatewaySource } from "../durable-objects/gateway-source.do";
export { GatewayInventory } from "./gateway/inventory.entrypoint";
export { ThinkingLog } from "../durable-objects/thinking.do";
export { ChatAgent } from "../durable-objects/chat-agent.do";

const app = createApp();

export default {
  fetch: app.fetch,

  async queue(batch, env) {
    const db = openDb(env.DB);
    if (batch.queue.endsWith("-dlq")) await consumeDeadLetters(db, batch.queue, batch.messages);
    else await consumeEvents(db, batch.queue, batch.messages, parseQueueEvent);
  },

  async scheduled(_controller, env, ctx) {
    const db = openDb(env.DB);
    const events = await fireDueReminders(db);
    queueEventSink(env.EVENTS, (promise) => ctx.waitUntil(promise)).publish(events);
    const relayed = await relayPendingEvents(db, env.EVENTS, parseQueueEvent);
    const sources = await rediscoverSources(db, env);
    // Last, and on its own: a KV hiccup in the OAuth clean-up must not hold up reminders or the relay.
    const purged = await purgeExpiredOAuthData(env).catch((error: unknown) => {
      log.error("oauth purge failed", { error: error instanceof Error ? error.message : String(error) });
      return { grantsPurged: 0, tokensPurged: 0 };
    });
    if (events.length > 0 || relayed.sent > 0 || relayed.failed > 0 || sources.checked > 0 || purged.grantsPurged > 0 || purged.tokensPurged > 0) {
      log.info("cron", {
        reminders_due: events.length,
        relayed: relayed.sent,
        relay_failed: relayed.failed,
        sources_rediscovered: sources.checked,
        sources_failed: sources.failed,
        oauth_grants_purged: purged.grantsPurged,
        oauth_tokens_purged: purged.tokensPurged,
      });
    }
  },
} satisfies ExportedHandler<Env>;

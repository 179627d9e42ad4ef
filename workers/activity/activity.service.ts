/**
 * A person's own recent tool calls (decision 0060), read from the GATEWAY_CALL rows the queue
 * consumer wrote to audit_log. Only the caller's rows are ever read (the user id comes from
 * authentication), and only those within AUDIT_RETENTION_DAYS: a row past it that the cron has not
 * deleted yet is not listed either.
 */
import { gatewayCallEventSchema, type GatewayCallEvent } from "../gateway/calls/gateway-call-event.schema";
import { retentionCutoff, retentionDays } from "../events/retention-settings";
import { decodeKeysetCursor, encodeKeysetCursor } from "../lib/cursor";
import type { Db } from "../lib/db";
import { log } from "../lib/log";
import { gatewayCallsOf, type GatewayCallRow } from "./activity.repo";
import type { ActivityCall, ActivityPage } from "./activity.schema";

const BUILTIN_PREFIX = "builtin:";
const UNKNOWN_CLIENT: ActivityCall["client"] = { name: null, version: null, protocol_version: null, oauth_client_id: null };

function asCall(event: GatewayCallEvent): ActivityCall {
  const call = event.gateway_call;
  const builtin = call.source_id === null;
  return {
    event_id: event.event_id,
    at: event.occurred_at,
    server: builtin && call.source_slug.startsWith(BUILTIN_PREFIX) ? call.source_slug.slice(BUILTIN_PREFIX.length) : call.source_slug,
    tool: call.tool,
    source: call.source_id === null ? null : { id: call.source_id, slug: call.source_slug },
    outcome: call.outcome,
    duration_ms: call.duration_ms,
    client: call.client ?? UNKNOWN_CLIENT,
  };
}

/** A stored row as a call; the consumer validated it before writing, so a row that no longer parses is skipped and logged. */
function parseRow(row: GatewayCallRow): ActivityCall | undefined {
  let body: unknown;
  try {
    body = JSON.parse(row.payload);
  } catch {
    body = undefined;
  }
  const parsed = gatewayCallEventSchema.safeParse(body);
  if (parsed.success) return asCall(parsed.data);
  log.warn("activity: an audit_log row is not a GATEWAY_CALL event; skipped", { event_id: row.eventId });
  return undefined;
}

export class ActivityService {
  constructor(
    private readonly db: Db,
    private readonly env: Partial<Pick<Env, "AUDIT_RETENTION_DAYS">>,
  ) {}

  async recentCalls(userId: number, page: { limit: number; cursor?: string | undefined }, now = Date.now()): Promise<ActivityPage> {
    const after = decodeKeysetCursor(page.cursor, "GET /api/activity");
    const days = retentionDays(this.env);
    const rows = await gatewayCallsOf(this.db, userId, retentionCutoff(days, now), after, page.limit + 1);
    const shown = rows.slice(0, page.limit);
    const last = shown.at(-1);
    return {
      calls: shown.flatMap((row) => parseRow(row) ?? []),
      next_cursor: rows.length > page.limit && last ? encodeKeysetCursor({ at: last.occurredAt, id: last.eventId }) : null,
      retention_days: days,
    };
  }
}

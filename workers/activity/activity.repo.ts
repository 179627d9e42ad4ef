/** The audit_log rows of a person's gateway calls, newest first, through audit_log_user_idx. */
import { and, desc, eq, gte, lt, or } from "drizzle-orm";
import { auditLog } from "../../d1/schema";
import type { Db } from "../lib/db";
import type { KeysetPosition } from "../lib/cursor";

export interface GatewayCallRow {
  eventId: string;
  occurredAt: string;
  payload: string;
}

/** At most `limit` of `userId`'s GATEWAY_CALL rows that occurred at or after `since`, older than `after` when given. */
export function gatewayCallsOf(
  db: Db,
  userId: number,
  since: string,
  after: KeysetPosition | undefined,
  limit: number,
): Promise<GatewayCallRow[]> {
  const olderThanCursor = after
    ? or(lt(auditLog.occurredAt, after.at), and(eq(auditLog.occurredAt, after.at), lt(auditLog.eventId, after.id)))
    : undefined;
  return db
    .select({ eventId: auditLog.eventId, occurredAt: auditLog.occurredAt, payload: auditLog.payload })
    .from(auditLog)
    .where(and(eq(auditLog.userId, userId), eq(auditLog.type, "GATEWAY_CALL"), gte(auditLog.occurredAt, since), olderThanCursor))
    .orderBy(desc(auditLog.occurredAt), desc(auditLog.eventId))
    .limit(limit)
    .all();
}

/** Queries of the outbox that are not part of relaying it (outbox.relay.ts). */
import { isNull, sql } from "drizzle-orm";
import { outbox } from "../../d1/schema";
import type { Db } from "../lib/db";

/** Events written but not yet confirmed by the queue consumer: /health reports it. */
export async function outboxBacklog(db: Db): Promise<number> {
  const row = await db.select({ count: sql<number>`count(*)` }).from(outbox).where(isNull(outbox.deliveredAt)).get();
  return row?.count ?? 0;
}

/**
 * Finds reminders that are due, marks them sent and emits REMINDER_DUE, atomically per batch.
 * The event id is derived from the reminder id, so an overlapping cron run can never emit the
 * same reminder twice (the outbox insert is INSERT OR IGNORE on that id).
 */
import { and, asc, eq, isNull, lte, sql } from "drizzle-orm";
import { reminders } from "../../d1/schema";
import { batch, type Db } from "../lib/db";
import { nowIso } from "../lib/clock";
import { eventsFrom, insertOutboxEvent } from "./task-outbox.statements";
import type { TaskEvent } from "./task-events.schema";

const REMINDER_BATCH = 100;

export async function fireDueReminders(db: Db, now = nowIso()): Promise<TaskEvent[]> {
  const due = await db
    .select()
    .from(reminders)
    .where(and(isNull(reminders.sentAt), lte(reminders.remindAt, now)))
    .orderBy(asc(reminders.remindAt))
    .limit(REMINDER_BATCH)
    .all();
  if (due.length === 0) return [];

  const statements = due.flatMap((reminder) => [
    insertOutboxEvent({
      eventId: `reminder-${reminder.id}`,
      type: "REMINDER_DUE",
      occurredAt: now,
      userId: reminder.userId,
      where: sql`t.id = ${reminder.taskId} AND EXISTS (SELECT 1 FROM reminders r WHERE r.id = ${reminder.id} AND r.sent_at IS NULL)`,
      extra: { reminder: { id: reminder.id, reminder_time: reminder.remindAt } },
    }),
    db
      .update(reminders)
      .set({ sentAt: now })
      .where(and(eq(reminders.id, reminder.id), isNull(reminders.sentAt))),
  ]);
  // Outbox statements RETURN their payload; the reminder updates return no rows.
  return eventsFrom(await batch(db, statements));
}

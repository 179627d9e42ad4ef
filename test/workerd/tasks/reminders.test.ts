/** schedule_reminder and the cron that fires due reminders as REMINDER_DUE events, exactly once. */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../workers/index";
import type { TaskEvent } from "../../../workers/tasks/task-events.schema";
import { openDb } from "../../../workers/lib/db";
import { fireDueReminders } from "../../../workers/tasks/reminders.cron";
import { callOk, connect } from "../../helpers/mcp";
import { addTask, callError, callWithText, type Task } from "../../helpers/tasks";
import { countRows, outboxRow } from "../../helpers/db";
import { createUser } from "../../helpers/users";

interface Reminder {
  id: number;
  task_id: number;
  reminder_time: string;
  sent_at: string | null;
  created_at: string;
}

async function withTask(title = "Remind me") {
  const user = await createUser();
  const client = await connect("tasks", user.token);
  return { user, client, task: await addTask(client, { title, tags: ["r"] }) };
}

async function sentAt(reminderId: number): Promise<string | null> {
  const row = await env.DB.prepare("SELECT sent_at FROM reminders WHERE id = ?").bind(reminderId).first<{ sent_at: string | null }>();
  return row!.sent_at;
}

function eventFor(events: readonly TaskEvent[], reminderId: number): TaskEvent[] {
  return events.filter((event) => event.event_id === `reminder-${reminderId}`);
}

describe("schedule_reminder", () => {
  it("schedules a future reminder and says when", async () => {
    const { client, task } = await withTask();
    const { data, text } = await callWithText<{ reminder: Reminder; task: Task }>(client, "schedule_reminder", {
      task_id: task.id,
      reminder_time: "2099-06-01T09:30:00+02:00",
    });

    expect(data.reminder).toMatchObject({
      id: expect.any(Number),
      task_id: task.id,
      reminder_time: "2099-06-01T07:30:00.000Z",
      sent_at: null,
    });
    expect(data.task).toEqual(task);
    expect(text).toBe(`Reminder #${data.reminder.id} set for 2099-06-01T07:30:00.000Z on #${task.id} [ ] Remind me — tags: r`);
  });

  it("rejects a time in the past with a clear error and stores nothing", async () => {
    const { user, client, task } = await withTask();
    const text = await callError(client, "schedule_reminder", { task_id: task.id, reminder_time: "2020-01-01T00:00:00Z" });
    expect(text).toBe("invalid_input: reminder_time: must be in the future");
    expect(await countRows("reminders", user.id)).toBe(0);
  });
});

describe("firing due reminders", () => {
  it("emits exactly one REMINDER_DUE event with the task and reminder once due, and nothing on later runs", async () => {
    const db = openDb(env.DB);
    const { user, client, task } = await withTask();
    const { reminder } = await callOk<{ reminder: Reminder }>(client, "schedule_reminder", {
      task_id: task.id,
      reminder_time: "2098-03-01T08:00:00Z",
    });

    expect(eventFor(await fireDueReminders(db, "2098-03-01T07:59:59.999Z"), reminder.id)).toEqual([]);
    expect(await sentAt(reminder.id)).toBeNull();

    const now = "2098-03-01T08:00:30.000Z";
    const [event, ...more] = eventFor(await fireDueReminders(db, now), reminder.id);
    expect(more).toEqual([]);
    const { overdue: _overdue, ...snapshot } = task;
    expect(event).toEqual({
      event_id: `reminder-${reminder.id}`,
      type: "REMINDER_DUE",
      version: 1,
      occurred_at: now,
      user_id: user.id,
      task_id: task.id,
      task: snapshot,
      reminder: { id: reminder.id, reminder_time: "2098-03-01T08:00:00.000Z" },
    });
    expect(await sentAt(reminder.id)).toBe(now);
    expect(JSON.parse((await outboxRow(`reminder-${reminder.id}`))!.payload)).toEqual(event);

    expect(eventFor(await fireDueReminders(db, "2098-03-02T00:00:00.000Z"), reminder.id)).toEqual([]);
    expect(await sentAt(reminder.id)).toBe(now);
    expect(await countRows("outbox", user.id)).toBe(2); // CREATED + REMINDER_DUE
  });

  it("overlapping runs still emit each reminder once", async () => {
    const db = openDb(env.DB);
    const { user, client, task } = await withTask();
    const { reminder } = await callOk<{ reminder: Reminder }>(client, "schedule_reminder", {
      task_id: task.id,
      reminder_time: "2097-01-01T00:00:00Z",
    });

    const runs = await Promise.all([1, 2, 3].map(() => fireDueReminders(db, "2097-01-01T00:01:00.000Z")));

    expect(runs.flatMap((events) => eventFor(events, reminder.id))).toHaveLength(1);
    expect(await countRows("outbox", user.id)).toBe(2);
  });

  it("the scheduled handler fires reminders that are due now, once", async () => {
    const { user, client, task } = await withTask();
    // A reminder up to a minute in the past is accepted and fires on the next cron run.
    const dueNow = new Date(Date.now() - 30_000).toISOString();
    const { reminder } = await callOk<{ reminder: Reminder }>(client, "schedule_reminder", { task_id: task.id, reminder_time: dueNow });

    for (let run = 0; run < 2; run++) {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
    }

    expect(await sentAt(reminder.id)).toEqual(expect.any(String));
    const row = await outboxRow(`reminder-${reminder.id}`);
    expect(row).toMatchObject({ type: "REMINDER_DUE", user_id: user.id, task_id: task.id });
    expect(await countRows("outbox", user.id)).toBe(2);
  });
});

/**
 * Bounded storage (decision 0060): the cron deletes audit_log rows and delivered outbox rows older
 * than AUDIT_RETENTION_DAYS, keeps newer rows and every undelivered event, and deletes in bounded
 * statements and bounded runs, so a backlog larger than one run's share takes several runs. Runs go
 * through the Worker's own scheduled handler with a short retention (1 day) in its env.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../workers/index";
import { deleteExpiredEvents, RETENTION_BOUNDS } from "../../../workers/events/retention.cron";
import { retentionDays } from "../../../workers/events/retention-settings";
import { openDb } from "../../../workers/lib/db";
import { outboxRow } from "../../helpers/db";
import { callOk, connect } from "../../helpers/mcp";
import { addTask } from "../../helpers/tasks";
import { createUser } from "../../helpers/users";

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

async function runCron(settings: { AUDIT_RETENTION_DAYS: string }): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), { ...env, ...settings }, ctx);
  await waitOnExecutionContext(ctx);
}

async function addAudit(userId: number, eventId: string, occurredAt: string): Promise<void> {
  await env.DB.prepare("INSERT INTO audit_log (event_id, type, user_id, occurred_at, payload) VALUES (?, 'GATEWAY_CALL', ?, ?, '{}')")
    .bind(eventId, userId, occurredAt)
    .run();
}

async function addOutbox(userId: number, eventId: string, createdAt: string, deliveredAt: string | null): Promise<void> {
  await env.DB.prepare("INSERT INTO outbox (event_id, type, user_id, payload, created_at, delivered_at) VALUES (?, 'CREATED', ?, '', ?, ?)")
    .bind(eventId, userId, createdAt, deliveredAt)
    .run();
}

async function idsIn(table: "audit_log" | "outbox", userId: number): Promise<string[]> {
  const query = env.DB.prepare(`SELECT event_id FROM ${table} WHERE user_id = ? ORDER BY event_id`).bind(userId);
  const { results } = await query.all<{ event_id: string }>();
  return results.map((row) => row.event_id);
}
const auditIds = (userId: number) => idsIn("audit_log", userId);
const outboxIds = (userId: number) => idsIn("outbox", userId);

async function auditCountOf(userId: number): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE user_id = ?").bind(userId).first<{ n: number }>();
  return row?.n ?? 0;
}

/** `count` audit rows for `userId`, all older than anything else in this file's database. */
async function addAncientAudit(userId: number, count: number): Promise<void> {
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO audit_log (event_id, type, user_id, task_id, occurred_at, payload)
     SELECT 'ancient-' || ? || '-' || i, 'GATEWAY_CALL', ?, NULL,
            strftime('%Y-%m-%dT%H:%M:%fZ', '2001-01-01', '+' || i || ' seconds'), '{}' FROM n`,
  )
    .bind(count, userId, userId)
    .run();
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("retention", () => {
  it("deletes audit rows and delivered outbox rows older than the retention, and keeps newer ones", async () => {
    const user = await createUser();
    await addAudit(user.id, "audit-old", ago(25 * HOUR));
    await addAudit(user.id, "audit-new", ago(23 * HOUR));
    await addOutbox(user.id, "outbox-old-delivered", ago(30 * HOUR), ago(25 * HOUR));
    await addOutbox(user.id, "outbox-new-delivered", ago(30 * HOUR), ago(23 * HOUR));

    await runCron({ AUDIT_RETENTION_DAYS: "1" });

    expect(await auditIds(user.id)).toEqual(["audit-new"]);
    expect(await outboxIds(user.id)).toEqual(["outbox-new-delivered"]);
  });

  it("never deletes an undelivered outbox row, however old", async () => {
    // The retention alone: in a whole cron run the relay would pick this row up and send it.
    const user = await createUser();
    await addOutbox(user.id, "outbox-undelivered", ago(400 * 24 * HOUR), null);

    const run = await deleteExpiredEvents(openDb(env.DB), { AUDIT_RETENTION_DAYS: "1" });

    expect(run.outboxDeleted).toBe(0);
    expect(await outboxRow("outbox-undelivered")).toMatchObject({ delivered_at: null });
  });

  it("deletes at most one run's share: a larger backlog takes several runs, each bounded", async () => {
    const user = await createUser();
    const perRun = RETENTION_BOUNDS.rowsPerStatement * RETENTION_BOUNDS.statementsPerRun;
    await addAncientAudit(user.id, perRun + 500);

    await runCron({ AUDIT_RETENTION_DAYS: "1" });
    expect(await auditCountOf(user.id)).toBe(500);

    await runCron({ AUDIT_RETENTION_DAYS: "1" });
    expect(await auditCountOf(user.id)).toBe(0);
  });

  it("keeps everything when the setting is not a number of days, logs why, and the rest of the cron still runs", async () => {
    const user = await createUser();
    await addAudit(user.id, "audit-kept", ago(400 * 24 * HOUR));
    const client = await connect("tasks", user.token);
    const task = await addTask(client, { title: "Remind me" });
    // Up to a minute in the past is accepted, and due at the next cron run.
    const due = { task_id: task.id, reminder_time: ago(30_000) };
    const { reminder } = await callOk<{ reminder: { id: number } }>(client, "schedule_reminder", due);
    const errors = vi.spyOn(console, "error");

    await runCron({ AUDIT_RETENTION_DAYS: "0" });

    expect(await auditIds(user.id)).toEqual(["audit-kept"]);
    const fired = await env.DB.prepare("SELECT sent_at FROM reminders WHERE id = ?").bind(reminder.id).first<{ sent_at: string | null }>();
    expect(fired!.sent_at).toEqual(expect.any(String));
    const logged = errors.mock.calls.map((call) => String(call[0]));
    const refusal = "AUDIT_RETENTION_DAYS must be a whole number of days from 1 to 3650";
    expect(logged.some((line) => line.includes("retention failed") && line.includes(refusal))).toBe(true);
  });
});

describe("AUDIT_RETENTION_DAYS", () => {
  it("is 30 days when unset or empty, and refuses anything but a whole number of days from 1 to 3650", () => {
    expect(retentionDays({})).toBe(30);
    expect(retentionDays({ AUDIT_RETENTION_DAYS: "" })).toBe(30);
    expect(retentionDays({ AUDIT_RETENTION_DAYS: " 7 " })).toBe(7);
    expect(retentionDays({ AUDIT_RETENTION_DAYS: "3650" })).toBe(3650);
    for (const bad of ["0", "-1", "1.5", "3651", "30d", "1e3"]) {
      expect(() => retentionDays({ AUDIT_RETENTION_DAYS: bad }), bad).toThrow(/must be a whole number of days from 1 to 3650/);
    }
  });
});

/** Direct reads of D1, to check what a call really committed (or did not). */
import { env } from "cloudflare:workers";

export interface OutboxRow {
  event_id: string;
  type: string;
  user_id: number;
  task_id: number | null;
  payload: string;
  created_at: string;
  attempts: number;
  last_error: string | null;
  delivered_at: string | null;
}

export async function countRows(table: "tasks" | "reminders" | "outbox", userId: number): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE user_id = ?`).bind(userId).first<{ n: number }>();
  return row?.n ?? 0;
}

export async function outboxForUser(userId: number): Promise<OutboxRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM outbox WHERE user_id = ? ORDER BY created_at, rowid")
    .bind(userId)
    .all<OutboxRow>();
  return results;
}

export async function outboxRow(eventId: string): Promise<OutboxRow | null> {
  return env.DB.prepare("SELECT * FROM outbox WHERE event_id = ?").bind(eventId).first<OutboxRow>();
}

export async function auditCount(eventId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM audit_log WHERE event_id = ?").bind(eventId).first<{ n: number }>();
  return row?.n ?? 0;
}

export async function deadLettersFor(messageId: string): Promise<{ queue: string; body: string; reason: string }[]> {
  const { results } = await env.DB.prepare("SELECT queue, body, reason FROM dead_letters WHERE message_id = ?")
    .bind(messageId)
    .all<{ queue: string; body: string; reason: string }>();
  return results;
}

export async function revokeTokens(userId: number): Promise<void> {
  await env.DB.prepare("UPDATE api_tokens SET revoked_at = ? WHERE user_id = ?").bind(new Date().toISOString(), userId).run();
}

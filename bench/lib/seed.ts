/**
 * The data every store starts with: one user, one API token (stored as its SHA-256 hex, exactly as
 * workers/auth/tokens.ts verifies it) and N tasks. The same statements seed D1 (through Miniflare)
 * and the node:sqlite store of the node-sdk peer, so all targets query the same rows.
 */
import type { Miniflare } from "miniflare";

export interface Statement {
  sql: string;
  params: (string | number | null)[];
}

export const BENCH_USER_ID = 1;

const PRIORITIES = ["none", "low", "medium", "high"] as const;
const TAGS = ["work", "home", "errand", "reading", "finance"] as const;
const BASE_TIME = Date.parse("2026-01-01T00:00:00.000Z");

export function seedStatements(tokenHash: string, taskCount: number): Statement[] {
  const statements: Statement[] = [
    { sql: "INSERT INTO users (id, name) VALUES (?, ?)", params: [BENCH_USER_ID, "bench"] },
    { sql: "INSERT INTO api_tokens (user_id, token_hash, label) VALUES (?, ?, 'bench')", params: [BENCH_USER_ID, tokenHash] },
  ];
  for (let i = 0; i < taskCount; i++) {
    // Distinct, increasing timestamps so "newest first" is a real ordering, not a tie-break on id.
    const created = new Date(BASE_TIME + i * 60_000).toISOString();
    const due = i % 3 === 0 ? new Date(BASE_TIME + (i + 500) * 3_600_000).toISOString() : null;
    const tags = JSON.stringify(TAGS.filter((_tag, index) => (i + index) % 4 === 0));
    statements.push({
      sql: `INSERT INTO tasks (user_id, title, description, status, priority, due_date, tags, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
        BENCH_USER_ID,
        `Seeded task ${i + 1}`,
        `Description of seeded task ${i + 1}, long enough to look like a real note.`,
        i % 5 === 0 ? "completed" : "pending",
        PRIORITIES[i % PRIORITIES.length]!,
        due,
        tags,
        created,
        created,
      ],
    });
  }
  return statements;
}

type D1 = Awaited<ReturnType<Miniflare["getD1Database"]>>;

/** D1 batches are one transaction each; 100 statements keeps every batch small. */
const BATCH = 100;

export async function runOnD1(d1: D1, statements: readonly Statement[]): Promise<void> {
  for (let start = 0; start < statements.length; start += BATCH) {
    const chunk = statements.slice(start, start + BATCH);
    await d1.batch(chunk.map((statement) => d1.prepare(statement.sql).bind(...statement.params)));
  }
}

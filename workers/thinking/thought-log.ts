/**
 * One user's sequential-thinking history, kept in the SQLite storage of their ThinkingLog object
 * (durable-objects/thinking.do.ts, one per user: idFromName("user:<id>")), which only hosts this, so
 * the history survives stateless requests and isolates, and no user can reach another's. The object
 * runs one call at a time and none of these await, so each check-then-write is atomic.
 *
 * Threads are implicit, because the reference input has no thread argument: a thought numbered 1
 * that is neither a revision nor a branch starts a new thread; every other thought continues the
 * newest one. A revision or a branch must point at a thought of that thread, so a chain cannot
 * revise a thought of some earlier, unrelated problem. A thread's id is the `seq` of its first
 * thought (AUTOINCREMENT: never reused, not even after a reset).
 */
import { MAX_HISTORY } from "./thinking-limits.schema";
import type { StoredThought, ThoughtInput, ThoughtResult } from "./thinking.schema";

/** A rejection is a value, not a throw: an error's class does not survive the RPC boundary. */
export type RecordOutcome =
  { ok: true; result: ThoughtResult } | { ok: false; field: "revisesThought" | "branchFromThought"; message: string };

interface ThoughtRow extends Record<string, SqlStorageValue> {
  seq: number;
  thread: number;
  thought: string;
  thought_number: number;
  total_thoughts: number;
  next_thought_needed: number;
  is_revision: number | null;
  revises_thought: number | null;
  branch_from_thought: number | null;
  branch_id: string | null;
  needs_more_thoughts: number | null;
  created_at: string;
}

export class ThoughtLog {
  constructor(private readonly sql: SqlStorage) {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS thoughts (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      thread INTEGER NOT NULL,
      thought TEXT NOT NULL,
      thought_number INTEGER NOT NULL,
      total_thoughts INTEGER NOT NULL,
      next_thought_needed INTEGER NOT NULL,
      is_revision INTEGER,
      revises_thought INTEGER,
      branch_from_thought INTEGER,
      branch_id TEXT,
      needs_more_thoughts INTEGER,
      created_at TEXT NOT NULL
    )`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS thoughts_by_thread ON thoughts (thread, thought_number)`);
  }

  /** Appends a thought (the input already passed the tool's schema) and answers the result fields. */
  record(input: ThoughtInput): RecordOutcome {
    const startsThread = input.thoughtNumber === 1 && input.isRevision !== true && input.branchFromThought === undefined;
    const thread = startsThread ? undefined : this.newestThread();

    if (input.revisesThought !== undefined && !this.exists(thread, input.revisesThought)) {
      return { ok: false, field: "revisesThought", message: this.missing("revisesThought", input.revisesThought, thread) };
    }
    if (input.branchFromThought !== undefined && !this.exists(thread, input.branchFromThought)) {
      return { ok: false, field: "branchFromThought", message: this.missing("branchFromThought", input.branchFromThought, thread) };
    }

    const totalThoughts = Math.max(input.totalThoughts, input.thoughtNumber);
    const seq = this.sql
      .exec<{ seq: number }>(
        `INSERT INTO thoughts (thread, thought, thought_number, total_thoughts, next_thought_needed, is_revision,
           revises_thought, branch_from_thought, branch_id, needs_more_thoughts, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
        thread ?? 0,
        input.thought,
        input.thoughtNumber,
        totalThoughts,
        Number(input.nextThoughtNeeded),
        flag(input.isRevision),
        input.revisesThought ?? null,
        input.branchFromThought ?? null,
        input.branchId ?? null,
        flag(input.needsMoreThoughts),
        new Date().toISOString(),
      )
      .one().seq;
    const threadId = thread ?? seq;
    if (thread === undefined) this.sql.exec("UPDATE thoughts SET thread = seq WHERE seq = ?", seq);
    this.sql.exec("DELETE FROM thoughts WHERE seq <= (SELECT seq FROM thoughts ORDER BY seq DESC LIMIT 1 OFFSET ?)", MAX_HISTORY);

    return {
      ok: true,
      result: {
        thoughtNumber: input.thoughtNumber,
        totalThoughts,
        nextThoughtNeeded: input.nextThoughtNeeded,
        ...this.summary(threadId),
      },
    };
  }

  /** The stored history, oldest first. */
  history(): StoredThought[] {
    return this.sql.exec<ThoughtRow>("SELECT * FROM thoughts ORDER BY seq").toArray().map(fromRow);
  }

  /** Deletes the whole history; answers how many thoughts there were. */
  reset(): number {
    const count = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM thoughts").one().n;
    this.sql.exec("DELETE FROM thoughts");
    return count;
  }

  private newestThread(): number | undefined {
    return this.sql.exec<{ thread: number }>("SELECT thread FROM thoughts ORDER BY seq DESC LIMIT 1").toArray()[0]?.thread;
  }

  private exists(thread: number | undefined, thoughtNumber: number): boolean {
    if (thread === undefined) return false;
    return (
      this.sql.exec("SELECT 1 FROM thoughts WHERE thread = ? AND thought_number = ? LIMIT 1", thread, thoughtNumber).toArray().length > 0
    );
  }

  private missing(field: string, thoughtNumber: number, thread: number | undefined): string {
    if (thread === undefined) {
      return `${field}: thought ${thoughtNumber} does not exist — this thought starts a new thread, which has no earlier thoughts`;
    }
    const { low, high } = this.sql
      .exec<{ low: number; high: number }>(
        "SELECT min(thought_number) AS low, max(thought_number) AS high FROM thoughts WHERE thread = ?",
        thread,
      )
      .one();
    const has = low === high ? `thought ${low}` : `thoughts ${low}–${high}`;
    return `${field}: thought ${thoughtNumber} does not exist in the current thread (it has ${has})`;
  }

  private summary(thread: number): Pick<ThoughtResult, "branches" | "thoughtHistoryLength" | "thread"> {
    const counts = this.sql
      .exec<{ total: number; in_thread: number }>(
        "SELECT count(*) AS total, coalesce(sum(thread = ?), 0) AS in_thread FROM thoughts",
        thread,
      )
      .one();
    const branchRows = this.sql
      .exec<{ branch_id: string; in_thread: number }>(
        `SELECT branch_id, max(thread = ?) AS in_thread FROM thoughts
         WHERE branch_id IS NOT NULL GROUP BY branch_id ORDER BY min(seq)`,
        thread,
      )
      .toArray();
    return {
      branches: branchRows.map((row) => row.branch_id),
      thoughtHistoryLength: counts.total,
      thread: {
        id: thread,
        thoughtCount: counts.in_thread,
        branches: branchRows.filter((row) => row.in_thread === 1).map((row) => row.branch_id),
      },
    };
  }
}

function flag(value: boolean | undefined): number | null {
  return value === undefined ? null : Number(value);
}

function fromRow(row: ThoughtRow): StoredThought {
  const thought: StoredThought = {
    seq: row.seq,
    thread: row.thread,
    createdAt: row.created_at,
    thought: row.thought,
    thoughtNumber: row.thought_number,
    totalThoughts: row.total_thoughts,
    nextThoughtNeeded: row.next_thought_needed === 1,
  };
  // Optional fields come back only when they were given, as in the input.
  if (row.is_revision !== null) thought.isRevision = row.is_revision === 1;
  if (row.revises_thought !== null) thought.revisesThought = row.revises_thought;
  if (row.branch_from_thought !== null) thought.branchFromThought = row.branch_from_thought;
  if (row.branch_id !== null) thought.branchId = row.branch_id;
  if (row.needs_more_thoughts !== null) thought.needsMoreThoughts = row.needs_more_thoughts === 1;
  return thought;
}

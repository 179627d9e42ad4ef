/**
 * Storage of the node-sdk peer: node:sqlite (DatabaseSync) with mcp-edge's schema (the same D1
 * migration files), the same seed and the same SQL statements. WAL + synchronous=NORMAL is the usual
 * server configuration of SQLite, and keeps an fsync per commit from dominating add_task.
 */
import { DatabaseSync } from "node:sqlite";
import { hashToken } from "../../workers/auth/tokens";
import { migrationStatements } from "../lib/migrations";
import type { Statement } from "../lib/seed";
import {
  INSERT_OUTBOX_SQL,
  INSERT_TASK_SQL,
  insertOutboxParams,
  insertTaskParams,
  LIST_TASKS_SQL,
  type NewTask,
  type TaskRow,
} from "./task-sql";

/** Like the product's isolate cache (workers/auth/auth.service.ts): a verified token skips the lookup for this long. */
const TOKEN_CACHE_MS = 30_000;

export interface TaskStore {
  /** The user id for a bearer token, or undefined when it is unknown or revoked. */
  authenticate(token: string): Promise<number | undefined>;
  listTasks(userId: number, limit: number): TaskRow[];
  addTask(userId: number, task: NewTask): TaskRow;
}

function isTaskRow(row: unknown): row is TaskRow {
  return typeof row === "object" && row !== null && "id" in row && "tags" in row;
}

export function openTaskStore(path: string, migrationsDir: string, seed: readonly Statement[]): TaskStore {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
  for (const statement of migrationStatements(migrationsDir)) db.exec(statement);
  db.exec("BEGIN");
  for (const statement of seed) db.prepare(statement.sql).run(...statement.params);
  db.exec("COMMIT");

  const tokenLookup = db.prepare(
    "SELECT users.id AS id FROM api_tokens INNER JOIN users ON users.id = api_tokens.user_id WHERE api_tokens.token_hash = ? AND api_tokens.revoked_at IS NULL",
  );
  const list = db.prepare(LIST_TASKS_SQL);
  const insertTask = db.prepare(INSERT_TASK_SQL);
  const insertOutbox = db.prepare(INSERT_OUTBOX_SQL);
  const tokenCache = new Map<string, { userId: number; expiresAt: number }>();

  return {
    async authenticate(token) {
      const hash = await hashToken(token);
      const cached = tokenCache.get(hash);
      if (cached && cached.expiresAt > Date.now()) return cached.userId;
      const row = tokenLookup.get(hash);
      const userId = row && typeof row["id"] === "number" ? row["id"] : undefined;
      if (userId !== undefined) tokenCache.set(hash, { userId, expiresAt: Date.now() + TOKEN_CACHE_MS });
      return userId;
    },
    listTasks(userId, limit) {
      return list.all(userId, limit + 1).filter(isTaskRow);
    },
    addTask(userId, task) {
      const occurredAt = new Date().toISOString();
      // One transaction, like the product's D1 batch: the task and its outbox event commit together.
      db.exec("BEGIN");
      try {
        const row = insertTask.get(...insertTaskParams(userId, task, occurredAt));
        insertOutbox.all(...insertOutboxParams(userId, crypto.randomUUID(), occurredAt));
        db.exec("COMMIT");
        if (!isTaskRow(row)) throw new Error("insert returned no row");
        return row;
      } catch (error) {
        if (db.isTransaction) db.exec("ROLLBACK");
        throw error;
      }
    },
  };
}

/**
 * What must hold for every answer the fuzzer provokes: no 5xx (nor its MCP form, an `internal`
 * tool error), nothing of the server's insides
 * (stack frames, source paths), and — for input the published schema rejects — nothing written.
 * "Written" is everything a user's request can change: their D1 rows (tasks, reminders, outbox,
 * documents, chunks, sources, hidden tools) and their thinking history in its Durable Object.
 * Audit rows are not counted: every call through /mcp is audited, refused ones included.
 */
import { env } from "cloudflare:workers";
import { ThinkingService } from "../../../workers/thinking/thinking.service";
import type { TestUser } from "../../helpers/users";
import type { Answer } from "./targets";

const INSIDES = [
  /(?:\n|\\n)\s+at\s+\S/, // a stack frame on its own line (raw or JSON-escaped newline)
  /[\w-]+\.(?:ts|mjs|cjs|js):\d+:\d+/, // file:line:col
  /\/work\/|node_modules\/|file:\/\//, // a path on the server
];

/** Why the answer breaks the no-5xx / no-insides rule, or undefined. */
export function leakOf(answer: Answer): string | undefined {
  if (answer.internal) return `the server failed (HTTP ${answer.status}, an internal error): ${answer.text.slice(0, 300)}`;
  const leak = INSIDES.find((pattern) => pattern.test(answer.text));
  return leak ? `the answer shows the server's insides (${leak}): ${answer.text.slice(0, 300)}` : undefined;
}

const COUNTS = `SELECT
  (SELECT count(*) FROM tasks WHERE user_id = ?1) AS tasks,
  (SELECT count(*) FROM reminders WHERE user_id = ?1) AS reminders,
  (SELECT count(*) FROM outbox WHERE user_id = ?1) AS outbox,
  (SELECT count(*) FROM rag_documents WHERE user_id = ?1) AS documents,
  (SELECT count(*) FROM rag_chunks WHERE user_id = ?1) AS chunks,
  (SELECT count(*) FROM sources WHERE user_id = ?1) AS sources,
  (SELECT count(*) FROM gateway_hidden_tools WHERE user_id = ?1) AS hidden_tools,
  (SELECT coalesce(max(updated_at), '') FROM tasks WHERE user_id = ?1) AS tasks_changed,
  (SELECT coalesce(max(updated_at), '') FROM sources WHERE user_id = ?1) AS sources_changed`;

/** Everything of `user` a request could have written, as one comparable string. */
export async function writtenState(user: TestUser): Promise<string> {
  const [rows, thoughts] = await Promise.all([
    env.DB.prepare(COUNTS).bind(user.id).first<Record<string, number | string>>(),
    new ThinkingService(env.THINKING).history(user.id),
  ]);
  return JSON.stringify({ ...rows, thoughts: thoughts.length });
}

/** Whether the failure text names `field` (a dotted path such as documents.0.text). */
export function namesField(failure: string, field: string): boolean {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w.])${escaped}([^\\w]|$)`).test(failure);
}

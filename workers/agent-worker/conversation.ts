/**
 * A user's stored conversation: the table `chat_messages` in the SQLite storage of their ChatAgent
 * object (docs/storage.md). It keeps the newest MAX_STORED_MESSAGES messages (50 turns), each tool
 * result cut to MAX_STORED_RESULT_CHARS. Nothing but the conversation is written: no token, no
 * principal.
 */
import type { ChatResult, ChatToolCall, HistoryMessage } from "../agent/agent.types";

export const MAX_STORED_MESSAGES = 100;
/** Messages of context the model gets with each new one. */
export const HISTORY_FOR_MODEL = 20;
const MAX_STORED_RESULT_CHARS = 4_000;

type MessageRow = {
  role: string;
  text: string;
  tool_calls: string | null;
  at: string;
};

export class Conversation {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS chat_messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      role TEXT NOT NULL,
      text TEXT NOT NULL,
      tool_calls TEXT,
      at TEXT NOT NULL
    )`);
  }

  /** Every stored message, oldest first. */
  all(): HistoryMessage[] {
    return this.sql.exec<MessageRow>("SELECT role, text, tool_calls, at FROM chat_messages ORDER BY seq").toArray().map(toMessage);
  }

  /** The newest HISTORY_FOR_MODEL messages, oldest first: the context of the next turn. */
  recent(): HistoryMessage[] {
    return this.sql
      .exec<MessageRow>(
        `SELECT role, text, tool_calls, at FROM (
          SELECT seq, role, text, tool_calls, at FROM chat_messages ORDER BY seq DESC LIMIT ?
        ) ORDER BY seq`,
        HISTORY_FOR_MODEL,
      )
      .toArray()
      .map(toMessage);
  }

  /** A finished turn: the user's message and the reply with its tool calls; older messages past the limit go. */
  storeTurn(message: string, result: ChatResult): void {
    const at = new Date().toISOString();
    this.sql.exec("INSERT INTO chat_messages (role, text, tool_calls, at) VALUES ('user', ?, NULL, ?)", message, at);
    this.sql.exec(
      "INSERT INTO chat_messages (role, text, tool_calls, at) VALUES ('assistant', ?, ?, ?)",
      result.reply,
      JSON.stringify(result.tool_calls.map(stored)),
      at,
    );
    this.sql.exec("DELETE FROM chat_messages WHERE seq <= (SELECT MAX(seq) FROM chat_messages) - ?", MAX_STORED_MESSAGES);
  }

  clear(): void {
    this.sql.exec("DELETE FROM chat_messages");
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM chat_messages").one().n;
  }
}

function stored(call: ChatToolCall): ChatToolCall {
  return call.result.length > MAX_STORED_RESULT_CHARS ? { ...call, result: `${call.result.slice(0, MAX_STORED_RESULT_CHARS)}…` } : call;
}

function toMessage(row: MessageRow): HistoryMessage {
  const message: HistoryMessage = { role: row.role === "user" ? "user" : "assistant", text: row.text, at: row.at };
  if (row.tool_calls) message.tool_calls = JSON.parse(row.tool_calls) as ChatToolCall[];
  return message;
}

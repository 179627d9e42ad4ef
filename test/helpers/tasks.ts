/** Task-tool shortcuts over the shared MCP helper, typed with the service's own output schema. */
import type { Client } from "@modelcontextprotocol/client";
import type { Task } from "../../workers/tasks/tasks.schema";
import { callOk, textOf } from "./mcp";

export type { Task };

/** An id no test ever creates: the reference answer for "not found". */
export const MISSING_ID = 987_654_321;

export async function addTask(client: Client, args: Record<string, unknown>): Promise<Task> {
  return (await callOk<{ task: Task }>(client, "add_task", args)).task;
}

/** Calls a tool that must fail with an `isError` result and returns its text. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) throw new Error(`${name} should have failed but returned ${JSON.stringify(result.structuredContent)}`);
  return textOf(result);
}

/** The text with one id replaced, so answers about different ids can be compared. */
export function withoutId(text: string, id: number): string {
  return text.replaceAll(String(id), "<id>");
}

/** A word no other task in the file contains, so FTS and LIKE results are predictable. */
export function uniqueWord(prefix = "w"): string {
  return `${prefix}${crypto.randomUUID().replace(/-/g, "").slice(0, 10)}`;
}

/** Like callOk, but also returns the text block (what a model reads). */
export async function callWithText<T>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ data: T; text: string }> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return { data: result.structuredContent as T, text: textOf(result) };
}

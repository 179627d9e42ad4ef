/**
 * A server's skills (the `io.modelcontextprotocol/skills` extension, SEP-2640) over an open
 * connection (connect.ts), with the SDK's host-side `SkillsClient`: it lists only when the server
 * declared the extension, walks the pages (bounded by MAX_LIST_PAGES) and refuses entries that
 * break the extension's rules, so what comes back has been checked once already. A skill's files
 * are ordinary resources, read with `resources/read`. Errors are typed (errors.ts).
 */
import { ProtocolError, ProtocolErrorCode, type ReadResourceResult } from "@modelcontextprotocol/client";
import { type Skill, SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import type { BoundedCallOptions } from "./answer-limit";
import { type McpClientConnection } from "./connect";
import { classifyMcpError } from "./errors";

export type { Skill } from "@modelcontextprotocol/client/ext/skills";
export type { ReadResourceResult };

/** Whether the server declared the skills extension when the connection was opened. */
export function servesSkills({ client }: McpClientConnection): boolean {
  return new SkillsClient(client).supported;
}

/** How a server says it has no such skill (-32602, SEP-2640) or resource (-32002). */
function isNotFound(error: unknown): boolean {
  return (
    error instanceof ProtocolError && (error.code === ProtocolErrorCode.InvalidParams || error.code === ProtocolErrorCode.ResourceNotFound)
  );
}

async function bounded<T>(
  { answerLimits }: McpClientConnection,
  maxAnswerBytes: number | undefined,
  run: (bound?: BoundedCallOptions) => Promise<T>,
): Promise<T | undefined> {
  try {
    return answerLimits && maxAnswerBytes !== undefined ? await answerLimits.call(maxAnswerBytes, run) : await run();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw classifyMcpError(error, false);
  }
}

/** Every valid skill the server lists (none when it does not serve skills); invalid entries are left out. */
export async function listSkills(connection: McpClientConnection, timeoutMs: number, maxAnswerBytes?: number): Promise<Skill[]> {
  const skills = new SkillsClient(connection.client, { skipInvalid: true });
  if (!skills.supported) return [];
  return (await bounded(connection, maxAnswerBytes, (bound) => skills.list(undefined, { timeout: timeoutMs, ...bound })))?.skills ?? [];
}

/** One skill by its `SKILL.md` URI; undefined when the server serves none there. */
export async function getSkill(
  connection: McpClientConnection,
  uri: string,
  timeoutMs: number,
  maxAnswerBytes?: number,
): Promise<Skill | undefined> {
  const skills = new SkillsClient(connection.client);
  if (!skills.supported) return undefined;
  return (await bounded(connection, maxAnswerBytes, (bound) => skills.get(uri, { timeout: timeoutMs, ...bound })))?.skill;
}

/** One resource (a skill's file) as the server sends it; undefined when it has none there. */
export function readResource(
  connection: McpClientConnection,
  uri: string,
  timeoutMs: number,
  maxAnswerBytes?: number,
): Promise<ReadResourceResult | undefined> {
  return bounded(connection, maxAnswerBytes, (bound) =>
    connection.client.readResource({ uri }, { timeout: timeoutMs, cacheMode: "refresh", ...bound }),
  );
}

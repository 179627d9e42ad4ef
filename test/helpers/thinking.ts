/** Sequential-thinking shortcuts over the shared MCP helper, typed with the server's own schema. */
import type { Client } from "@modelcontextprotocol/client";
import type { ThoughtResult } from "../../workers/thinking/thinking.schema";
import { callOk } from "./mcp";

export type { ThoughtResult };

/** A thought with the required fields filled in; `fields` overrides or adds the rest. */
export function thought(thoughtNumber: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { thought: `Thought ${thoughtNumber}`, thoughtNumber, totalThoughts: 3, nextThoughtNeeded: true, ...fields };
}

export function think(client: Client, thoughtNumber: number, fields: Record<string, unknown> = {}): Promise<ThoughtResult> {
  return callOk<ThoughtResult>(client, "sequentialthinking", thought(thoughtNumber, fields));
}

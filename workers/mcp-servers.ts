/**
 * The built-in MCP servers, each at /mcp/<name> and all of them on the gateway /mcp. A server is
 * its name and a loader: its module (tools, zod schemas, resources) is imported by the first
 * request for it, so a new isolate builds none of them and a request to one server never builds
 * the others (workers/http/lazy.ts). Its own module so Node tools (bin/conformance.ts) can list
 * the servers without importing the app.
 */
import { onFirstUse } from "./lib/first-use";
import type { McpServerDefinition } from "./mcp/server-definition";

export interface McpServerEntry {
  /** Mounted at /mcp/<name>; known without loading the server. */
  name: string;
  /** The server's definition, built on the first call and shared by every later one. */
  load(): Promise<McpServerDefinition>;
}

export const mcpServerEntries: readonly McpServerEntry[] = [
  { name: "tasks", load: onFirstUse(async () => (await import("./tasks/tasks.server")).tasksServer) },
  { name: "rag", load: onFirstUse(async () => (await import("./rag/rag.server")).ragServer) },
  { name: "thinking", load: onFirstUse(async () => (await import("./thinking/thinking.server")).thinkingServer) },
];

/** An entry for a definition that is already built (the conformance fixture, tests). */
export function builtEntry(definition: McpServerDefinition): McpServerEntry {
  return { name: definition.name, load: async () => definition };
}

/** Every server of `entries`, loaded (the gateway and the REST API list them all). */
export function loadMcpServers(entries: readonly McpServerEntry[] = mcpServerEntries): Promise<McpServerDefinition[]> {
  return Promise.all(entries.map((entry) => entry.load()));
}

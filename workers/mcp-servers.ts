/**
 * The built-in MCP servers, each at /mcp/<name> and all of them on the gateway /mcp. Its own
 * module so Node tools (bin/conformance.ts) can list them without importing the whole app, whose
 * agent routes pull in `agents` and with it `cloudflare:workers`, which only workerd resolves.
 */
import type { McpServerDefinition } from "./mcp/server-definition";
import { ragServer } from "./rag/rag.server";
import { tasksServer } from "./tasks/tasks.server";
import { thinkingServer } from "./thinking/thinking.server";

export const mcpServers: readonly McpServerDefinition[] = [tasksServer, ragServer, thinkingServer];

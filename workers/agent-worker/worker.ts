/**
 * The chat agent's Worker (mcp-edge-agent, workers/agent-worker/wrangler.toml): the ChatAgent Durable
 * Objects and, imported by the first message, the agent core with the AI SDK and the model
 * providers — none of which the main Worker bundles (docs/decisions/0036).
 *
 * Its only way in is ChatService over a service binding (the main Worker's AGENT binding): the Worker
 * has no route and no workers.dev URL, and its default fetch answers 404 to anything that reaches
 * it. Each call carries the caller's principal as the main Worker authenticated it — user, scopes,
 * the resource their token was for — and never a token. The principal picks the user's own
 * ChatAgent (named by the user id), so a chat never reaches another user's conversation.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { ChatOutcome, ChatRequest, HistoryMessage } from "../agent/agent.types";
import type { PrincipalWire } from "../auth/principal-wire";

export { ChatAgent } from "../../durable-objects/chat-agent.do";

/** The user's own ChatAgent: the one named by the principal's user id. */
function agentOf(env: AgentEnv, principal: PrincipalWire) {
  // The main Worker sends what its own authentication produced; anything else is a bug there, and
  // must not land in some shared object such as the one named "undefined".
  const id = principal?.user?.id;
  if (!Number.isSafeInteger(id) || id <= 0) throw new TypeError("ChatService needs the caller's principal with its user id");
  return env.CHAT_AGENT.getByName(String(id));
}

// Every method is async, so a refused call is a rejected promise the caller sees, not a throw.
export class ChatService extends WorkerEntrypoint<AgentEnv> {
  /** One message, answered as a whole. */
  async chat(principal: PrincipalWire, request: ChatRequest): Promise<ChatOutcome> {
    return agentOf(this.env, principal).chat({ principal, ...request });
  }

  /** One message, answered as SSE bytes (tool_call / tool_result / reply / done, or error). */
  async chatStream(principal: PrincipalWire, request: ChatRequest): Promise<ReadableStream<Uint8Array>> {
    return agentOf(this.env, principal).chatStream({ principal, ...request });
  }

  /** The user's stored conversation. */
  async history(principal: PrincipalWire): Promise<HistoryMessage[]> {
    return agentOf(this.env, principal).history();
  }

  /** Forgets the user's conversation and closes their agent's connections. */
  async reset(principal: PrincipalWire): Promise<void> {
    return agentOf(this.env, principal).reset();
  }
}

export default {
  fetch() {
    return Response.json(
      { error: { code: "not_found", message: "The chat agent has no public routes: talk to it through /api/chat on mcp-edge" } },
      { status: 404 },
    );
  },
} satisfies ExportedHandler<AgentEnv>;

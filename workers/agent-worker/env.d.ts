/**
 * The agent Worker's secrets and optional bindings: the only part of `AgentEnv` typed by hand.
 * Everything workers/agent-worker/wrangler.toml declares is generated into
 * workers/agent-worker/worker-configuration.d.ts (`npm run types`, checked fresh by .ci/run).
 */
interface AgentHandTypedBindings {
  /** Workers AI for the agent's model (uncomment `[ai]` in workers/agent-worker/wrangler.toml, then delete this line). */
  AI?: Ai;
  /** Secret: the key for AGENT_OPENAI_BASE_URL. */
  AGENT_OPENAI_API_KEY?: string;
  /** Secret: bearer token for an MCP_URL that is not on the main Worker's origin. */
  MCP_TOKEN?: string;
}

declare global {
  interface AgentEnv extends AgentHandTypedBindings {}
}

export {};

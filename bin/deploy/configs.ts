/**
 * What `npm run deploy` needs to know of the two Workers' wrangler configs (wrangler.toml and
 * workers/agent-worker/wrangler.toml), read with wrangler's own parser so the configs stay the one source:
 * the Workers' names, the queues they use, the D1 database, and the agent's binding back to the
 * main Worker (which makes the first deployment a cycle: each Worker binds to the other).
 */
import { join } from "node:path";
import { experimental_readRawConfig } from "wrangler";
import * as z from "zod";

const queueConfig = z.looseObject({
  producers: z.array(z.looseObject({ queue: z.string() })).optional(),
  consumers: z.array(z.looseObject({ queue: z.string(), dead_letter_queue: z.string().optional() })).optional(),
});
const serviceBinding = z.looseObject({ binding: z.string(), service: z.string() });
const rawConfig = z.looseObject({
  name: z.string(),
  vars: z.record(z.string(), z.unknown()).optional(),
  queues: queueConfig.optional(),
  d1_databases: z.array(z.looseObject({ binding: z.string(), database_name: z.string().optional() })).optional(),
  services: z.array(serviceBinding).optional(),
});
export type RawWorkerConfig = z.output<typeof rawConfig>;

export interface WorkerConfig {
  /** The config file, relative to the repository root (what `-c` takes). */
  path: string;
  name: string;
  raw: RawWorkerConfig;
}

export interface DeployConfigs {
  main: WorkerConfig;
  agent: WorkerConfig;
  /** Every queue either Worker produces to, consumes or dead-letters to, each once. */
  queues: string[];
  /** The main Worker's D1 binding and the database name wrangler provisions it under. */
  database: { binding: string; name: string };
  /** The agent's MCP_URL as configured: "" means the main Worker's own gateway (`<origin>/mcp`). */
  agentMcpUrl: string;
}

export const MAIN_CONFIG = "wrangler.toml";
export const AGENT_CONFIG = "workers/agent-worker/wrangler.toml";

function readWorkerConfig(root: string, path: string): WorkerConfig {
  const { rawConfig: raw } = experimental_readRawConfig({ config: join(root, path) });
  const parsed = rawConfig.parse(raw);
  return { path, name: parsed.name, raw: parsed };
}

function queuesOf(config: RawWorkerConfig): string[] {
  const producers = config.queues?.producers?.map((producer) => producer.queue) ?? [];
  const consumers = (config.queues?.consumers ?? []).flatMap((consumer) => [
    consumer.queue,
    ...(consumer.dead_letter_queue ? [consumer.dead_letter_queue] : []),
  ]);
  return [...producers, ...consumers];
}

export function readDeployConfigs(root: string): DeployConfigs {
  const main = readWorkerConfig(root, MAIN_CONFIG);
  const agent = readWorkerConfig(root, AGENT_CONFIG);
  const d1 = main.raw.d1_databases?.[0];
  if (!d1?.database_name) {
    throw new Error(`${MAIN_CONFIG}: the [[d1_databases]] binding needs a database_name (wrangler creates the database under it)`);
  }
  const mcpUrl = agent.raw.vars?.["MCP_URL"];
  return {
    main,
    agent,
    queues: [...new Set([...queuesOf(main.raw), ...queuesOf(agent.raw)])],
    database: { binding: d1.binding, name: d1.database_name },
    agentMcpUrl: typeof mcpUrl === "string" ? mcpUrl : "",
  };
}

/** The agent's config without its service bindings to `worker`: for the first deployment, before `worker` exists. */
export function withoutBindingsTo(config: WorkerConfig, worker: string): RawWorkerConfig {
  return { ...config.raw, services: (config.raw.services ?? []).filter((binding) => binding.service !== worker) };
}

export function bindsTo(config: WorkerConfig, worker: string): boolean {
  return (config.raw.services ?? []).some((binding) => binding.service === worker);
}

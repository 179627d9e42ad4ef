/**
 * How a source is reached (UpstreamConfig, upstream.types.ts), opened from its D1 row: remote env
 * vars become headers, stdio ones the process env, the bridge token a bearer header — decrypted.
 * Opened configs are kept briefly per isolate (OpenedConfigs; the isolate's is in
 * workers/isolate-state.ts), keyed by everything they are made of, so a warm source's call skips
 * AES-GCM and SHA-256.
 */
import type { StoredEnvVar } from "../../../d1/schema";
import { BoundedCache } from "../../lib/bounded-cache";
import { sha256Hex } from "../../lib/encoding";
import { privateUpstreamsAllowed } from "../../lib/url-safety";
import type { SecretBox } from "../sources/secrets";
import type { UpstreamConfig, UpstreamTransport } from "../sources/upstream.types";

/** The sealing name of a stdio source's bridge token: `:` never occurs in a variable name, so it cannot collide. */
export const BRIDGE_TOKEN_KEY = ":bridge_token";

/** What opening a config needs of a source's row. */
export interface ReachableSource {
  id: number;
  userId: number;
  slug: string;
  mcpServerUrl: string;
  mcpTransportType: UpstreamTransport;
  mcpLifecycleMode: "transient" | "singleton";
  mcpEnvVars: StoredEnvVar[];
  bridgeToken: string | null;
  timeoutMs: number;
}

/** How long an opened upstream config (decrypted headers) is reused in this isolate. */
const CONFIG_TTL_MS = 60_000;
const CONFIG_CACHE_MAX = 256;

/**
 * Opened configs by `configKey`. The key holds every input of the config — owner, URL, transport,
 * the sealed values (a new IV on every re-seal) and the sealing key — so a changed source, another
 * user or another key can never hit an old entry; the TTL only bounds how long secrets stay in memory.
 */
export type OpenedConfigs = BoundedCache<string, UpstreamConfig>;

export function openedConfigs(): OpenedConfigs {
  return new BoundedCache({ maxEntries: CONFIG_CACHE_MAX, ttlMs: CONFIG_TTL_MS });
}

function configKey(
  row: ReachableSource,
  sealingKey: string | undefined,
  allowPrivateUpstreams: boolean,
  selfOrigin: string | undefined,
): string {
  return JSON.stringify([
    row.id,
    row.userId,
    row.slug,
    row.mcpServerUrl,
    row.mcpTransportType,
    row.mcpLifecycleMode,
    row.timeoutMs,
    row.mcpEnvVars,
    row.bridgeToken,
    sealingKey ?? null,
    allowPrivateUpstreams,
    selfOrigin ?? null,
  ]);
}

async function openConfig(
  row: ReachableSource,
  secrets: SecretBox,
  allowPrivateUpstreams: boolean,
  selfOrigin: string | undefined,
): Promise<UpstreamConfig> {
  const values: Record<string, string> = {};
  for (const v of row.mcpEnvVars) values[v.name] = v.secret ? await secrets.open(row.userId, v.name, v.value) : v.value;
  const stdio = row.mcpTransportType === "stdio";
  const headers = stdio ? {} : values;
  if (stdio && row.bridgeToken) headers["Authorization"] = `Bearer ${await secrets.open(row.userId, BRIDGE_TOKEN_KEY, row.bridgeToken)}`;
  const env = stdio ? values : {};
  return {
    sourceId: row.id,
    slug: row.slug,
    url: row.mcpServerUrl,
    transport: row.mcpTransportType,
    headers,
    env,
    lifecycle: row.mcpLifecycleMode,
    timeoutMs: row.timeoutMs,
    allowPrivateUpstreams,
    selfOrigin,
    fingerprint: await sha256Hex(JSON.stringify([row.mcpServerUrl, row.mcpTransportType, headers, env, allowPrivateUpstreams])),
  };
}

export async function upstreamConfig(
  row: ReachableSource,
  secrets: SecretBox,
  env: Pick<Env, "SOURCE_SECRETS_KEY" | "ALLOW_PRIVATE_UPSTREAMS" | "SELF_ORIGIN">,
  opened: OpenedConfigs,
): Promise<UpstreamConfig> {
  const allowPrivateUpstreams = privateUpstreamsAllowed(env);
  const key = configKey(row, env.SOURCE_SECRETS_KEY, allowPrivateUpstreams, env.SELF_ORIGIN);
  const cached = opened.get(key);
  if (cached) return cached;
  const config = await openConfig(row, secrets, allowPrivateUpstreams, env.SELF_ORIGIN);
  opened.set(key, config);
  return config;
}

/**
 * The environment a gateway may set for a stdio process, sent as `Mcp-Bridge-Env:
 * base64url(JSON object)` (encoded by workers/mcp-client/bridge-protocol.ts). Only names the
 * manifest declares or --env-allow lists are accepted, so a gateway can never set PATH,
 * NODE_OPTIONS or LD_PRELOAD; anything else refuses the session with the offending names (values
 * are never echoed or logged).
 */
import { ENV_VAR_NAME } from "../../workers/gateway/registry/manifest";

const MAX_HEADER_BYTES = 16 * 1024;

export class BridgeEnvError extends Error {
  override readonly name = "BridgeEnvError";
}

/** Decodes and checks the header; an absent header means no variables. */
export function gatewayEnv(header: string | undefined, allowed: ReadonlySet<string>): Record<string, string> {
  if (header === undefined || header === "") return {};
  if (header.length > MAX_HEADER_BYTES) throw new BridgeEnvError(`Mcp-Bridge-Env is larger than ${MAX_HEADER_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(header, "base64url").toString("utf8"));
  } catch {
    throw new BridgeEnvError("Mcp-Bridge-Env must be base64url-encoded JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new BridgeEnvError("Mcp-Bridge-Env must encode a JSON object");
  const env: Record<string, string> = {};
  const refused: string[] = [];
  for (const [name, v] of Object.entries(value)) {
    if (!ENV_VAR_NAME.test(name))
      throw new BridgeEnvError(`Mcp-Bridge-Env has an invalid variable name ${JSON.stringify(name.slice(0, 64))}`);
    if (typeof v !== "string") throw new BridgeEnvError(`Mcp-Bridge-Env variable ${name} must be a string`);
    if (!allowed.has(name)) refused.push(name);
    else env[name] = v;
  }
  if (refused.length > 0) {
    const allowList = allowed.size > 0 ? [...allowed].sort().join(", ") : "none";
    throw new BridgeEnvError(`this bridge does not allow setting ${refused.sort().join(", ")} (allowed: ${allowList})`);
  }
  return env;
}

/** Same values, same order-independent key: whether a running shared process fits a session's env. */
export function envKey(env: Record<string, string>): string {
  return JSON.stringify(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

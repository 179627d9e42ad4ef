/**
 * The transport rules of a source's registration, as pure checks over the merged configuration
 * (what was stored plus what a create or update sends):
 * - remote (streamable_http, sse): mcp_env_vars are HTTP headers, so transport-owned headers are refused;
 * - stdio: the URL is the `mcp-edge bridge`'s, a bridge token is required, mcp_env_vars are the
 *   subprocess environment (POSIX names), and a manifest, when given, decides which variables are
 *   required (missing ones are named) and which are secret (stored encrypted even if not marked).
 */
import { AppError } from "../../lib/errors";
import {
  ENV_VAR_NAME,
  type Manifest,
  missingRequiredEnv,
  parseManifest,
  redactSecretDefaults,
  secretEnvNames,
  type StdioLaunch,
  stdioLaunch,
} from "./manifest";
import type { TRANSPORT_TYPES } from "../sources/sources.schema";

export type Transport = (typeof TRANSPORT_TYPES)[number];

/** Headers the transport owns or that would let a source confuse the upstream about who calls. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "connection",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-bridge-env",
  "last-event-id",
]);

export interface VarSpec {
  name: string;
  secret: boolean;
}

export function checkVarNames(transport: Transport, vars: readonly VarSpec[]): void {
  for (const { name } of vars) {
    if (transport === "stdio") {
      if (!ENV_VAR_NAME.test(name))
        throw AppError.invalid(`mcp_env_vars ${name}: must be an environment variable name (letters, digits, _)`, "mcp_env_vars");
    } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      throw AppError.invalid(`mcp_env_vars ${name}: this header is set by the gateway itself`, "mcp_env_vars");
    }
  }
}

export interface ManifestCheck {
  manifest: Manifest;
  /** Names the manifest marks secret: stored encrypted whatever the caller said. */
  secretNames: Set<string>;
  launch: StdioLaunch;
  /** The manifest as stored and returned: the caller's (or the bridge's) object, secret defaults redacted. */
  storable: Record<string, unknown>;
}

/**
 * Parses the manifest and checks the variables against it: every missing required one is named.
 * `providedElsewhere`: names the bridge itself sets for the plugin (from its own environment).
 */
export function checkManifest(
  raw: Record<string, unknown>,
  transport: Transport,
  vars: readonly VarSpec[],
  providedElsewhere: readonly string[] = [],
): ManifestCheck {
  if (transport !== "stdio") throw AppError.invalid("manifest is for stdio sources only (mcp_transport_type stdio)", "manifest");
  const manifest = parseManifest(raw);
  const missing = missingRequiredEnv(manifest, [...vars.map((v) => v.name), ...providedElsewhere]);
  if (missing.length > 0) {
    throw AppError.invalid(`mcp_env_vars lacks variables the manifest requires: ${missing.join(", ")}`, "mcp_env_vars");
  }
  const secretNames = secretEnvNames(manifest);
  return { manifest, secretNames, launch: stdioLaunch(manifest), storable: redactSecretDefaults(raw, secretNames) };
}

export function requireBridgeToken(transport: Transport, hasToken: boolean): void {
  if (transport === "stdio" && !hasToken) {
    throw AppError.invalid("bridge_token is required for stdio sources: the token `mcp-edge bridge` was started with", "bridge_token");
  }
}

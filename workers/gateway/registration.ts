/**
 * The transport rules of a source's registration, as pure checks over the merged configuration
 * (what was stored plus what a create or update sends):
 * - remote (streamable_http, sse): mcp_env_vars are HTTP headers, so transport-owned headers are refused;
 * - stdio: the URL is the `mcp-edge bridge`'s, a bridge token is required, mcp_env_vars are the
 *   subprocess environment (POSIX names), and a manifest, when given, decides which variables are
 *   required (missing ones are named) and which are secret (stored encrypted even if not marked).
 */
import { AppError } from "../lib/errors";
import { declaredEnv, ENV_VAR_NAME, type Manifest, missingRequiredEnv, parseManifest, stdioLaunch } from "./manifest";
import type { TRANSPORT_TYPES } from "./sources.schema";

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
      if (!ENV_VAR_NAME.test(name)) throw AppError.invalid(`mcp_env_vars ${name}: must be an environment variable name (letters, digits, _)`, "mcp_env_vars");
    } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      throw AppError.invalid(`mcp_env_vars ${name}: this header is set by the gateway itself`, "mcp_env_vars");
    }
  }
}

export interface ManifestCheck {
  manifest: Manifest;
  /** Names the manifest marks secret: stored encrypted whatever the caller said. */
  secretNames: Set<string>;
  launch: { command: string; args: string[]; runtimeHint: string | null };
}

/** Parses the manifest and checks the variables against it: every missing required one is named. */
export function checkManifest(raw: Record<string, unknown>, transport: Transport, vars: readonly VarSpec[]): ManifestCheck {
  if (transport !== "stdio") throw AppError.invalid("manifest is for stdio sources only (mcp_transport_type stdio)", "manifest");
  const manifest = parseManifest(raw);
  const missing = missingRequiredEnv(
    manifest,
    vars.map((v) => v.name),
  );
  if (missing.length > 0) {
    throw AppError.invalid(`mcp_env_vars lacks variables the manifest requires: ${missing.join(", ")}`, "mcp_env_vars");
  }
  const secretNames = new Set(
    declaredEnv(manifest)
      .filter((v) => v.secret)
      .map((v) => v.name),
  );
  return { manifest, secretNames, launch: stdioLaunch(manifest) };
}

/**
 * The manifest as stored and returned: the caller's object with the `default` of every variable
 * it marks secret replaced by a placeholder, so no API can echo a secret that came inside a
 * manifest, while a re-check still sees that the variable has a default (is never missing).
 */
export const REDACTED = "<redacted>";

export function storableManifest(raw: Record<string, unknown>, secretNames: ReadonlySet<string>): Record<string, unknown> {
  const copy = structuredClone(raw);
  const packages = Array.isArray(copy["packages"]) ? (copy["packages"] as unknown[]) : [];
  for (const pkg of packages) {
    if (typeof pkg !== "object" || pkg === null) continue;
    for (const key of ["environmentVariables", "environment_variables"]) {
      const vars = (pkg as Record<string, unknown>)[key];
      if (!Array.isArray(vars)) continue;
      for (const v of vars) {
        if (typeof v === "object" && v !== null && secretNames.has(String((v as Record<string, unknown>)["name"]))) {
          if ((v as Record<string, unknown>)["default"] !== undefined) (v as Record<string, unknown>)["default"] = REDACTED;
        }
      }
    }
  }
  return copy;
}

export function requireBridgeToken(transport: Transport, hasToken: boolean): void {
  if (transport === "stdio" && !hasToken) {
    throw AppError.invalid("bridge_token is required for stdio sources: the token `mcp-edge bridge` was started with", "bridge_token");
  }
}

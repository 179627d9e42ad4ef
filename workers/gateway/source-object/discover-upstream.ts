/**
 * The source object's discovery: it lists the upstream's tools and says what kind of upstream it
 * is, `stateless` or `sessionful` (upstream.types.ts); the Worker's discovery service writes the
 * inventory and the kind to D1. A streamable HTTP upstream is listed over a fresh handshake (never
 * a resumed session), so what the connection shows — session or not, the protocol version — is
 * what the upstream is now; a warm connection serving calls is left alone meanwhile. SSE and stdio
 * (through the bridge) always keep sessions: their warm connection is reused as before.
 */
import { type McpClientConnection, type Negotiated, negotiated } from "../../mcp-client/connect";
import { bearerRefusal } from "../authorization/bearer-resource";
import { upstreamFailure } from "../calls/upstream-failure";
import { listUpstreamTools } from "../discovery/upstream-listing";
import { CLOSED } from "../calls/breaker";
import type { DiscoveryOutcome, UpstreamConfig, UpstreamKind } from "../sources/upstream.types";
import type { SourceBreaker } from "./source-breaker";
import type { SourceStorage } from "./source-storage";
import type { UpstreamSessions } from "./upstream-sessions";

export interface DiscoveryDeps {
  storage: SourceStorage;
  breaker: SourceBreaker;
  connections: UpstreamSessions;
  /** The Worker's vars: the inventory limits a listing is held to. */
  env: Env;
}

/** stdio is served by a bridge, which keeps a session per process; SSE's session is its stream. */
function kindOf(config: UpstreamConfig, connection: Negotiated): UpstreamKind {
  if (config.transport === "sse" || config.transport === "stdio") return "sessionful";
  return connection.sessionId === null ? "stateless" : "sessionful";
}

/**
 * Lists the upstream's tools. An owner's upstream OAuth token in the config is sent only to a URL
 * the resource it was issued for covers (bearer-resource.ts): otherwise the answer is
 * `authorization_required`, and nothing is sent.
 */
export async function discoverUpstream(deps: DiscoveryDeps, config: UpstreamConfig): Promise<DiscoveryOutcome> {
  const { storage, breaker, connections } = deps;
  const refused = bearerRefusal(config);
  if (refused) {
    const error = { type: "authorization_required" as const, message: refused };
    const nothing = { toolsJson: "[]", kind: null, protocolVersion: null, discoverJson: null, inventoryStaleAt: null };
    return { ok: false, ...nothing, error, breaker: breaker.snapshot() };
  }
  const learnsKind = config.transport !== "sse" && config.transport !== "stdio";
  const beside = learnsKind && connections.warm?.fingerprint === config.fingerprint;
  if (learnsKind && !beside) storage.forgetSession();
  const list = async (open: McpClientConnection) => ({
    listing: await listUpstreamTools(open, config.timeoutMs, deps.env),
    connection: negotiated(open),
  });
  try {
    const { listing, connection } = beside ? await connections.besideWarm(config, list) : await connections.withConnection(config, list);
    const kind = kindOf(config, connection);
    // A stateless upstream is called from the Worker: nothing to keep open here.
    if (kind === "stateless") await connections.drop();
    const staleAt = storage.keepInventory(listing);
    breaker.discovered();
    return {
      ok: true,
      toolsJson: JSON.stringify(listing.tools),
      kind,
      protocolVersion: connection.protocolVersion ?? storage.session()?.protocolVersion ?? null,
      discoverJson: kind === "stateless" && connection.discover ? JSON.stringify(connection.discover) : null,
      error: null,
      inventoryStaleAt: staleAt,
      breaker: CLOSED,
    };
  } catch (error) {
    const failure = upstreamFailure(error, false);
    if (failure.countsAsFailure) breaker.discoveryFailed(Date.now());
    return {
      ok: false,
      toolsJson: "[]",
      kind: null,
      protocolVersion: null,
      discoverJson: null,
      error: { type: failure.type, message: failure.message },
      inventoryStaleAt: null,
      breaker: breaker.snapshot(),
    };
  }
}

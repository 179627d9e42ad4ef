/**
 * A source's upstream connection between D1 and the SDK: opened from its sealed columns into what
 * the provider (gateway-oauth-client.ts) holds, and sealed back into a row patch after an exchange
 * — plus the sealed secrets of a flow in progress. Sealing is the gateway's box for a source's
 * secrets (AES-GCM under SOURCE_SECRETS_KEY, lent through its port) with a name that binds each
 * value to its owner (the additional data) and its source (the name itself): a value copied to
 * another row does not open.
 */
import type { GatewayForConnections } from "../gateway/authorization/upstream-authorization";
import { BoundedCache } from "../lib/bounded-cache";
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "../mcp-client/oauth";
import { nowIso } from "../lib/clock";
import { isJsonObject } from "../lib/json";
import type { AuthorizationPatch, AuthorizationRow, FlowRow } from "./authorizations.repo";
import type { ClientIdentification, GatewayOAuthClient, OAuthState } from "./gateway-oauth-client";

/** `:` never occurs in a variable name (the other sealed values of a source), and the source id binds each value to its source. */
export const sealName = (kind: "tokens" | "client" | "flow", sourceId: number) => `:oauth:${kind}:${sourceId}`;

/** What a flow keeps sealed until its callback. */
export interface FlowSecrets {
  verifier: string;
  authorizationUrl: string;
  /** The authorization server it was sent to, and the redirect URI it asked for: its answer is taken only there (flow-binding.ts). */
  issuer?: string | undefined;
  redirectUri?: string | undefined;
  /** A client registered (or given) for this flow: stored only when the flow completes. */
  client?: StoredOAuthClientInformation | undefined;
  identification?: ClientIdentification | null | undefined;
}

const OPENED_MAX = 256;

/**
 * Tokens opened from their sealed text, kept by the isolate so a warm source's call skips AES-GCM;
 * keyed by the sealed text itself, so a refreshed or dropped token is never served again.
 */
export type OpenedTokens = BoundedCache<string, StoredOAuthTokens>;

export function openedTokens(): OpenedTokens {
  return new BoundedCache({ maxEntries: OPENED_MAX });
}

/** The discovery state a row keeps (public metadata documents, stored as the SDK gave them). */
export function discoveryOf(row: Pick<AuthorizationRow, "discoveryState">): OAuthDiscoveryState | undefined {
  return (row.discoveryState ?? undefined) as OAuthDiscoveryState | undefined;
}

export function storableDiscovery(state: OAuthDiscoveryState): Record<string, unknown> | null {
  const value: unknown = JSON.parse(JSON.stringify(state));
  return isJsonObject(value) ? value : null;
}

export class SealedState {
  constructor(
    private readonly secrets: GatewayForConnections["secrets"],
    private readonly opened: OpenedTokens,
  ) {}

  async open(row: AuthorizationRow): Promise<OAuthState> {
    const json = async (kind: "tokens" | "client", sealed: string | null): Promise<unknown> =>
      sealed === null ? undefined : JSON.parse(await this.secrets.open(row.userId, sealName(kind, row.sourceId), sealed));
    let tokens = row.tokens === null ? undefined : this.opened.get(row.tokens);
    if (row.tokens !== null && tokens === undefined) {
      // Sealed by this module from the SDK's own objects: their shape is the SDK's.
      tokens = (await json("tokens", row.tokens)) as StoredOAuthTokens;
      this.opened.set(row.tokens, tokens);
    }
    return {
      tokens,
      client: (await json("client", row.clientInformation)) as StoredOAuthClientInformation | undefined,
      identification: row.clientIdentification,
      expiresAt: row.tokenExpiresAt === null ? null : Date.parse(row.tokenExpiresAt),
      discovery: discoveryOf(row),
    };
  }

  /** The row patch for what the exchange changed (the discovery state always; client and tokens when changed). */
  async patch(userId: number, sourceId: number, state: OAuthState, provider: GatewayOAuthClient): Promise<AuthorizationPatch> {
    const patch: AuthorizationPatch = { discoveryState: state.discovery ? storableDiscovery(state.discovery) : null, updatedAt: nowIso() };
    if (provider.clientChanged) {
      patch.clientInformation = state.client
        ? await this.secrets.seal(userId, sealName("client", sourceId), JSON.stringify(state.client))
        : null;
      patch.clientIdentification = state.identification;
    }
    if (provider.tokensChanged) {
      patch.tokens = state.tokens ? await this.secrets.seal(userId, sealName("tokens", sourceId), JSON.stringify(state.tokens)) : null;
      patch.tokenExpiresAt = state.expiresAt === null ? null : new Date(state.expiresAt).toISOString();
      patch.grantedScope = state.tokens?.scope ?? null;
    }
    return patch;
  }

  sealFlow(userId: number, sourceId: number, secrets: FlowSecrets): Promise<string> {
    return this.secrets.seal(userId, sealName("flow", sourceId), JSON.stringify(secrets));
  }

  async openFlow(flow: FlowRow): Promise<FlowSecrets> {
    return JSON.parse(await this.secrets.open(flow.userId, sealName("flow", flow.sourceId), flow.secrets)) as FlowSecrets;
  }
}

/**
 * The SDK's OAuthClientProvider for one (user, source): the state `auth()` reads and writes, held
 * in memory for one exchange — the service loads it from D1 (opened from its sealed columns)
 * before and stores what changed after. It never sends the browser anywhere itself: the
 * authorization URL `auth()` builds is kept for the start link, since the user opens it later.
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "../mcp-client/oauth";
import { gatewayClientMetadata, type GatewayClientUrls } from "./gateway-client";

export type ClientIdentification = "metadata_document" | "dynamic_registration" | "manual";

/** The state of one source's authorization as `auth()` sees it (decrypted). */
export interface OAuthState {
  client: StoredOAuthClientInformation | undefined;
  identification: ClientIdentification | null;
  tokens: StoredOAuthTokens | undefined;
  /** Absolute expiry of `tokens.access_token` (epoch ms), computed when they were saved. */
  expiresAt: number | null;
  discovery: OAuthDiscoveryState | undefined;
}

export class GatewayOAuthClient implements OAuthClientProvider {
  /** Set by `auth()` when it would send the user to authorize. */
  authorizationUrl: URL | undefined;
  verifier: string | undefined;
  tokensChanged = false;
  clientChanged = false;
  /** The resource (RFC 8707) `auth()` asked tokens for: the only URLs they may be sent to. */
  resource: string | undefined;

  constructor(
    readonly held: OAuthState,
    private readonly urls: GatewayClientUrls,
    private readonly options: { state?: string; now: () => number; verifier?: string },
  ) {
    this.verifier = options.verifier;
  }

  get redirectUrl(): string {
    return this.urls.redirectUri;
  }

  get clientMetadataUrl(): string | undefined {
    return this.urls.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return gatewayClientMetadata(this.urls);
  }

  state(): string {
    if (this.options.state === undefined) throw new Error("no state for this exchange: it does not start an authorization");
    return this.options.state;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.held.client;
  }

  saveClientInformation(client: StoredOAuthClientInformation): void {
    // The SDK stamps a client the user gave with the issuer and saves it again: it stays `manual`.
    const sameManual = this.held.identification === "manual" && this.held.client?.client_id === client.client_id;
    this.held.client = client;
    if (!sameManual)
      this.held.identification = client.client_id === this.urls.clientMetadataUrl ? "metadata_document" : "dynamic_registration";
    this.clientChanged = true;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.held.tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    // A refresh answer may leave the refresh token out: the one we had stays valid (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? this.held.tokens?.refresh_token;
    this.held.tokens = { ...tokens, ...(refresh ? { refresh_token: refresh } : {}) };
    this.held.expiresAt = typeof tokens.expires_in === "number" ? this.options.now() + tokens.expires_in * 1000 : null;
    this.tokensChanged = true;
  }

  saveResourceUrl(resource: string): void {
    this.resource = resource;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no PKCE verifier for this exchange");
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.held.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.held.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") {
      this.held.client = undefined;
      this.held.identification = null;
      this.clientChanged = true;
    }
    if (scope === "all" || scope === "tokens") {
      this.held.tokens = undefined;
      this.held.expiresAt = null;
      this.tokensChanged = true;
    }
    if (scope === "all" || scope === "discovery") this.held.discovery = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
  }
}

/**
 * What an isolate of the main Worker remembers between requests: every piece of state that outlives
 * the request that made it, in one object, so this file says what an isolate remembers (each piece,
 * its bounds and why it is safe: docs/storage.md, "Isolate memory"). The composition root takes it
 * (workers/services.ts#createServices); the Worker's isolate has one, `isolateState`, and a test
 * may hand its own. Each piece is bounded: by workers/lib/bounded-cache.ts, or as its own module says.
 *
 * Kept beside their code instead, and listed in docs/storage.md: memos of a pure derivation (an
 * answer never depends on them: prepared statements, imported keys, the parsed first-sign-in scopes
 * setting, per-definition indexes in workers/mcp/) and the lazily imported modules (decision 0034).
 */
import { type VerifiedTokens, verifiedTokens } from "./auth/auth.service";
import { AuthorizationServers } from "./auth/authorization-server";
import { type ClientDocuments, clientDocuments } from "./auth/client-metadata-fetch";
import { type OpenIdProviders, openIdProviders } from "./auth/oidc/oidc-client";
import { BREAKER_VIEW_TTL_MS, BreakerView } from "./gateway/calls/breaker-view";
import { CallableToolCache } from "./gateway/calls/callable-cache";
import { DeferredBatch } from "./gateway/calls/deferred-batch";
import { CallEventBuffers } from "./gateway/calls/tool-call-audit";
import { type OpenedConfigs, openedConfigs } from "./gateway/calls/upstream-config";
import { type RagMemory, ragMemory } from "./rag/rag.service";
import { type OpenedTokens, openedTokens } from "./upstream-connections/sealed-state";

export interface IsolateState {
  /** Gateway: the callable tools /mcp looked up, per user and name (5 s, 2,048 entries). */
  callables: CallableToolCache;
  /** Gateway: per stateless source called here, this isolate's view of its breaker (5 s, 1,024 sources). */
  breakers: BreakerView;
  /** Gateway: opened upstream configs, their secrets decrypted (60 s, 256 entries). */
  upstreamConfigs: OpenedConfigs;
  /** Gateway: the GATEWAY_CALL messages waiting for the next deferred run. */
  callEvents: CallEventBuffers;
  /** Gateway: the one deferred run of a call's bookkeeping, shared by the breaker reports and the audit. */
  deferred: DeferredBatch;
  /** RAG: per user, the resident exact vector index and term statistics (8 users each). */
  rag: RagMemory;
  /**
   * Sign-in: the principal of each verified bearer token, by the token's SHA-256 (TOKEN_CACHE_SECONDS,
   * never past the token's own expiry; 10,000 tokens).
   */
  verifiedTokens: VerifiedTokens;
  /** Sign-in: the OAuth library's authorization server per issuer origin (8 origins). */
  authorizationServers: AuthorizationServers;
  /** Sign-in: Client ID Metadata Documents fetched here, which the library reads instead of fetching again (60 s, 100 documents). */
  clientDocuments: ClientDocuments;
  /** Sign-in: the OpenID provider's discovery document and keys (10 min, 4 issuers). */
  openIdProviders: OpenIdProviders;
  /** Upstream connections: upstream tokens opened from their sealed text (256 tokens). */
  openedUpstreamTokens: OpenedTokens;
}

export function createIsolateState(): IsolateState {
  const deferred = new DeferredBatch();
  const documents = clientDocuments();
  return {
    callables: new CallableToolCache(),
    breakers: new BreakerView(Date.now, BREAKER_VIEW_TTL_MS, deferred),
    upstreamConfigs: openedConfigs(),
    callEvents: new CallEventBuffers(deferred),
    deferred,
    rag: ragMemory(),
    verifiedTokens: verifiedTokens(),
    authorizationServers: new AuthorizationServers(documents),
    clientDocuments: documents,
    openIdProviders: openIdProviders(),
    openedUpstreamTokens: openedTokens(),
  };
}

/** This isolate's: the one piece of module state the composition root reads. */
export const isolateState: IsolateState = createIsolateState();

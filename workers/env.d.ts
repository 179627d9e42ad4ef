/**
 * The Worker's secrets and optional bindings: the only part of `Env` typed by hand.
 * Everything wrangler.toml declares is generated into worker-configuration.d.ts (`npm run types`,
 * checked fresh by .ci/run); what is here cannot be, because it is either a secret (never in
 * [vars]; `wrangler secret put NAME`) or off by default so that local dev and the tests need no
 * Cloudflare account. Uncommenting `[ai]` or `[[vectorize]]` in wrangler.toml makes `wrangler types`
 * declare that binding: then delete its line here.
 */
interface HandTypedBindings {
  // Gateway
  /** Secret: 32 random bytes, base64; encrypts sources' env vars and bridge tokens (AES-GCM). */
  SOURCE_SECRETS_KEY?: string;
  /** "1" / "true" lets sources use plain http and private or loopback hosts: local dev and tests only, never production. */
  ALLOW_PRIVATE_UPSTREAMS?: string;
  /** Minutes after which the cron discovers a source's tools again; unset = 15 (commented out in [vars]). */
  GATEWAY_REDISCOVERY_MINUTES?: string;
  /**
   * Where upstream authorization servers fetch mcp-edge's Client ID Metadata Document; unset =
   * <origin>/oauth/gateway-client.json (used only when https). It must serve that route's document.
   */
  GATEWAY_CLIENT_METADATA_URL?: string;

  // RAG server
  /** Workers AI: embeddings, reranking and generation when configured. */
  AI?: Ai;
  /** Vectorize index for chunk vectors (its dimensions must match the embedder). */
  VECTORIZE?: Vectorize;
  /** Secret: bearer key for RAG_OPENAI_BASE_URL. */
  RAG_OPENAI_API_KEY?: string;

  // Sign-in with an OpenID Connect provider
  /** Secret: the client secret registered at OIDC_ISSUER; unset = a public client (PKCE only). */
  OIDC_CLIENT_SECRET?: string;
}

declare global {
  // worker-configuration.d.ts declares both the global Env and Cloudflare.Env; extend both alike.
  interface Env extends HandTypedBindings {}
  namespace Cloudflare {
    interface Env extends HandTypedBindings {}
  }
}

export {};

/**
 * Gateway settings that must not appear in wrangler.toml [vars], typed by hand:
 * - SOURCE_SECRETS_KEY is a secret (`wrangler secret put SOURCE_SECRETS_KEY`; 32 bytes, base64).
 * - ALLOW_PRIVATE_UPSTREAMS ("1" / "true") lets sources use plain http and private or loopback
 *   hosts; only local dev (`npm run dev`) and the tests set it, never production.
 */
interface GatewayOptionalBindings {
  SOURCE_SECRETS_KEY?: string;
  ALLOW_PRIVATE_UPSTREAMS?: string;
}

declare global {
  // worker-configuration.d.ts declares both the global Env and Cloudflare.Env; extend both alike.
  interface Env extends GatewayOptionalBindings {}
  namespace Cloudflare {
    interface Env extends GatewayOptionalBindings {}
  }
}

export {};

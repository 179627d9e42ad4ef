/**
 * Gateway settings that must not appear in wrangler.toml [vars], typed by hand:
 * - SOURCE_SECRETS_KEY is a secret (`wrangler secret put SOURCE_SECRETS_KEY`; 32 bytes, base64).
 * - ALLOW_PRIVATE_UPSTREAMS ("1" / "true") lets sources use plain http and private or loopback
 *   hosts; only local dev (`npm run dev`) and the tests set it, never production.
 * - GATEWAY_REDISCOVERY_MINUTES (optional var, default 15): how old a source's inventory may get
 *   before the cron discovers its tools again. Optional, so it is not in [vars] nor generated.
 */
interface GatewayOptionalBindings {
  SOURCE_SECRETS_KEY?: string;
  ALLOW_PRIVATE_UPSTREAMS?: string;
  GATEWAY_REDISCOVERY_MINUTES?: string;
}

declare global {
  // worker-configuration.d.ts declares both the global Env and Cloudflare.Env; extend both alike.
  interface Env extends GatewayOptionalBindings {}
  namespace Cloudflare {
    interface Env extends GatewayOptionalBindings {}
  }
}

export {};

/**
 * The client mcp-edge is registered as at the test OpenID Provider (test/upstreams/oidc-provider.ts):
 * shared by the provider, vitest.config.ts (the Worker's OIDC_* bindings) and the tests in workerd,
 * which must not import the provider itself (it runs in Node).
 */
export const OIDC_CLIENT_ID = "mcp-edge-tests";
/** A test-only secret: the provider and the Worker's test bindings share it. */
export const OIDC_CLIENT_SECRET = "test-only-oidc-client-secret-0123456789";
/** The Worker's callback under the tests' origin (SELF_ORIGIN http://localhost). */
export const OIDC_REDIRECT_URI = "http://localhost/authorize/oidc/callback";

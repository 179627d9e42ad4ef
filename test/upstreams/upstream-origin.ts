/**
 * Where the upstream Worker answers in the workerd test projects: this same Worker run a second
 * time, as another deployment would be (test/upstreams/upstream-worker.ts builds it, vitest.config.ts
 * routes this host to it). A reserved name (RFC 6761 `.test`): it can never resolve to a real host.
 * https, as a deployment is: its authorization server has an issuer only on https or loopback
 * (workers/auth/resources.ts#issuerFor); the test network hands the request over without TLS.
 * Imported by the config (Node) and by the tests (workerd), so it imports nothing.
 */
export const UPSTREAM_HOST = "upstream.mcp-edge.test";
export const UPSTREAM_ORIGIN = `https://${UPSTREAM_HOST}`;

/**
 * Where upstream connections are served in the browser: mcp-edge's Client ID Metadata Document, the
 * connect link's page, the one-time start link and the callbacks. Its own module, importing nothing,
 * so the entry can route them (workers/sign-in-routes.ts) without loading what serves them.
 */
export const GATEWAY_CLIENT_PATH = "/oauth/gateway-client.json";
/** The metadata document's redirect URI; per-issuer ones are `<it>/<issuerTag>` (gateway-client.ts). */
export const UPSTREAM_CALLBACK_PATH = "/oauth/upstream/callback";
export const UPSTREAM_START_PATH = "/oauth/upstream/start";
/** The link a call needing a connection carries: opened in a signed-in browser, it asks to confirm, then starts connecting. */
export const UPSTREAM_CONNECT_PATH = "/oauth/upstream/connect";

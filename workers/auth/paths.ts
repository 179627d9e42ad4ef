/**
 * Where sign-in is served: our authorization server's endpoints, the /authorize pages and the
 * OpenID provider's callback. Its own module, importing nothing, so the entry can route every one
 * of them (workers/sign-in-routes.ts) without loading what serves them (decision 0034).
 */
export const PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";
export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";
export const AUTHORIZE_PATH = "/authorize";
/** Where a one-time sign-in link (`npm run token -- login-link`) lands. */
export const SIGN_IN_LINK_PATH = `${AUTHORIZE_PATH}/link`;
export const SIGN_OUT_PATH = `${AUTHORIZE_PATH}/sign-out`;
export const OIDC_CALLBACK_PATH = `${AUTHORIZE_PATH}/oidc/callback`;
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
/** The web console's own client id (console-client.ts). */
export const CONSOLE_CLIENT_PATH = "/oauth/console-client";

/**
 * Every route of the sign-in wing: sign-in (our authorization server's endpoints, the /authorize
 * pages, the OpenID provider's callback; workers/auth/) and upstream connections (the gateway's
 * client document and connect pages; workers/upstream-connections/). A route is its methods, its
 * path and a loader of its handler, so the entry routes each request once (workers/app.ts) and a
 * new isolate loads none of the OAuth code: a handler's module is imported by the first request
 * for it (decision 0034). Its own module, like mcp-servers.ts, so the entry stays routing only;
 * it imports the paths of sign-in and of upstream connections, which import nothing, and types.
 */
import type { Context } from "hono";
import type { SignInEnv } from "./auth/authorize/authorize.routes";
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  AUTHORIZE_PATH,
  CONSOLE_CLIENT_PATH,
  OIDC_CALLBACK_PATH,
  PROTECTED_RESOURCE_METADATA_PATH,
  REGISTER_PATH,
  SIGN_IN_LINK_PATH,
  SIGN_OUT_PATH,
  TOKEN_PATH,
} from "./auth/paths";
import { GATEWAY_CLIENT_PATH, UPSTREAM_CALLBACK_PATH, UPSTREAM_CONNECT_PATH, UPSTREAM_START_PATH } from "./upstream-connections/paths";

type SignInHandler = (c: Context<SignInEnv>) => Response | Promise<Response>;

export interface SignInRoute {
  /** The methods routed here; none: every method (the library's endpoints answer the ones they serve). */
  methods?: readonly ("GET" | "POST" | "HEAD" | "OPTIONS")[];
  path: string;
  load(): Promise<SignInHandler>;
}

const oauthEndpoints = () => import("./auth/oauth.routes");
const authorizePages = () => import("./auth/authorize/authorize.routes");
const oidcCallback = () => import("./auth/authorize/oidc-callback.routes");
const connectPages = () => import("./upstream-connections/connect.routes");

const METADATA = ["GET", "HEAD", "OPTIONS"] as const;
const resourceMetadata = async () => (await oauthEndpoints()).protectedResourceMetadata;

export const signInRoutes: readonly SignInRoute[] = [
  { methods: METADATA, path: PROTECTED_RESOURCE_METADATA_PATH, load: resourceMetadata },
  { methods: METADATA, path: `${PROTECTED_RESOURCE_METADATA_PATH}/*`, load: resourceMetadata },
  { path: AUTHORIZATION_SERVER_METADATA_PATH, load: async () => (await oauthEndpoints()).authorizationServerMetadata },
  { path: TOKEN_PATH, load: async () => (await oauthEndpoints()).token },
  { path: REGISTER_PATH, load: async () => (await oauthEndpoints()).registration },
  { methods: ["GET"], path: CONSOLE_CLIENT_PATH, load: async () => (await oauthEndpoints()).consoleClientEndpoint },
  { methods: ["GET"], path: AUTHORIZE_PATH, load: async () => (await authorizePages()).authorizePage },
  { methods: ["POST"], path: AUTHORIZE_PATH, load: async () => (await authorizePages()).authorizeForm },
  { methods: ["GET"], path: SIGN_IN_LINK_PATH, load: async () => (await authorizePages()).signInLinkPage },
  { methods: ["POST"], path: SIGN_IN_LINK_PATH, load: async () => (await authorizePages()).signInLinkForm },
  { methods: ["POST"], path: SIGN_OUT_PATH, load: async () => (await authorizePages()).signOutForm },
  { methods: ["GET"], path: OIDC_CALLBACK_PATH, load: async () => (await oidcCallback()).oidcCallback },
  { methods: ["GET"], path: GATEWAY_CLIENT_PATH, load: async () => (await connectPages()).gatewayClient },
  { methods: ["GET"], path: UPSTREAM_CONNECT_PATH, load: async () => (await connectPages()).connectPage },
  { methods: ["POST"], path: UPSTREAM_CONNECT_PATH, load: async () => (await connectPages()).connectForm },
  { methods: ["GET"], path: UPSTREAM_START_PATH, load: async () => (await connectPages()).startLink },
  { methods: ["GET"], path: UPSTREAM_CALLBACK_PATH, load: async () => (await connectPages()).callback },
  { methods: ["GET"], path: `${UPSTREAM_CALLBACK_PATH}/:issuer_tag`, load: async () => (await connectPages()).callback },
];

/**
 * What every HTTP handler may use, set once per request by the middleware: the authenticated
 * user and the domain services (built by the composition root, workers/services.ts).
 */
import type { Access } from "../auth/access";
import type { AuthUser } from "../auth/principal";
import type { Services } from "../services";

export interface AppVariables {
  services: Services;
  user: AuthUser;
  /** Who is calling (user, scopes, how) and the request's 403 step-up answer. */
  access: Access;
  /**
   * Set only on a request that came through the SelfCalls entry point marked by the gateway
   * (http/self-call.ts): the user whose tool-call unit this request's call has already spent.
   */
  toolCallCountedFor?: number;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };

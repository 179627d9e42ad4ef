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
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };

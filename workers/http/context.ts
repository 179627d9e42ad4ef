/**
 * What every HTTP handler may use, set once per request by the middleware: the authenticated
 * user and the domain services (built by the composition root, workers/services.ts).
 */
import type { AuthUser } from "../auth/auth.service";
import type { Services } from "../services";

export interface AppVariables {
  services: Services;
  user: AuthUser;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };

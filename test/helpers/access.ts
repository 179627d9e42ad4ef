/** The access of an API-token caller with every scope, for tests that call a serving function directly. */
import type { Access } from "../../workers/auth/access";
import type { AuthUser } from "../../workers/auth/principal";
import { ALL_SCOPES } from "../../workers/auth/scopes";

export function fullAccess(user: AuthUser): Access {
  return {
    principal: { user, scopes: ALL_SCOPES, via: "api_token" },
    refuse: (needed) => new Response(JSON.stringify({ error: { code: "forbidden", needed } }), { status: 403 }),
  };
}

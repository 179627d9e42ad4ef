/**
 * Who is calling, as every handler sees it: the user, the scopes granted (implications already
 * expanded), how they authenticated and, for OAuth, the client and the resource the token was
 * issued for. The only identity the rest of the code knows; nothing here names the OAuth library.
 */
import { missingScopes, type Scope } from "./scopes";

export interface AuthUser {
  id: number;
  name: string;
}

export interface Principal {
  user: AuthUser;
  /** Granted scopes plus what they imply (`tasks:write` brings `tasks:read`). */
  scopes: ReadonlySet<Scope>;
  /** `api_token`: an `mcpe_` token from D1, not bound to a resource. `oauth`: an access token from this server. */
  via: "api_token" | "oauth";
  /** The OAuth client the token was issued to (absent for API tokens). */
  clientId?: string | undefined;
  /** The canonical resource an OAuth token was issued for (absent for API tokens). */
  audience?: string | undefined;
}

/** The scopes of `needed` the principal lacks; empty when it may go ahead. */
export function lacking(principal: Principal, needed: readonly Scope[]): Scope[] {
  return missingScopes(principal.scopes, needed);
}

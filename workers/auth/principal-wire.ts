/**
 * A principal as it crosses a service binding between the main Worker and the chat agent's Worker
 * (docs/security.md, "The agent Worker's trust boundary"): plain data — the user, the granted
 * scopes (implications expanded), how they authenticated, and for OAuth the client and the
 * resource the token was issued for. Never a token: whoever holds this cannot authenticate
 * anywhere with it; it only says who a request that was already authenticated came from.
 *
 * Both sides parse it (a malformed principal is a bug on the other side, refused by name), and the
 * receiving side re-applies the rules it would have applied to the token itself: scopes per tool,
 * the audience per resource.
 */
import * as z from "zod";
import type { Principal } from "./principal";
import { expandScopes, normalizeScopes, SCOPES } from "./scopes";

export const principalWire = z.strictObject({
  user: z.strictObject({ id: z.number().int().positive(), name: z.string() }),
  scopes: z.array(z.enum(SCOPES)),
  via: z.enum(["api_token", "oauth"]),
  client_id: z.string().optional(),
  audience: z.string().optional(),
});

export type PrincipalWire = z.output<typeof principalWire>;

export function toWire(principal: Principal): PrincipalWire {
  return {
    user: { id: principal.user.id, name: principal.user.name },
    scopes: normalizeScopes(principal.scopes),
    via: principal.via,
    ...(principal.clientId === undefined ? {} : { client_id: principal.clientId }),
    ...(principal.audience === undefined ? {} : { audience: principal.audience }),
  };
}

/** The principal a wire value describes; throws a ZodError naming what is malformed. */
export function fromWire(value: unknown): Principal {
  const wire = principalWire.parse(value);
  return {
    user: wire.user,
    scopes: expandScopes(wire.scopes),
    via: wire.via,
    ...(wire.client_id === undefined ? {} : { clientId: wire.client_id }),
    ...(wire.audience === undefined ? {} : { audience: wire.audience }),
  };
}

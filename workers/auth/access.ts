/**
 * A request's access: who is calling and how to refuse what they may not do. Built once per
 * request by the authentication middleware and handed to tools and routes; `refuse` answers
 * 403 with the step-up challenge for that request's resource.
 */
import { lacking, type Principal } from "./principal";
import type { Scope } from "./scopes";

export interface Access {
  principal: Principal;
  /** The 403 answer naming every scope in `needed` (all the operation needs, not just the missing ones). */
  refuse(needed: readonly Scope[]): Response;
}

/** The 403 to send when the principal lacks any of `needed`, else undefined. */
export function refusal(access: Access, needed: readonly Scope[]): Response | undefined {
  return lacking(access.principal, needed).length > 0 ? access.refuse(needed) : undefined;
}

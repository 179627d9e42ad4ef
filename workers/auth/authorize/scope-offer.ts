/**
 * Which scopes the consent page offers for a request, which of them start ticked, and when consent
 * the user gave before answers for them (issue 21 finding 7, decision 0053). A resource is offered
 * only the scopes it serves (resources.ts): asked-for scopes it does not serve are dropped, and a
 * request asking for none it serves goes back as `invalid_scope`. A request asking for nothing is
 * offered all its resource serves — for one without a `resource`, the root: every scope. Every
 * offered scope starts ticked except those given only on purpose (`gateway:admin`, scopes.ts);
 * what stays ticked is what is granted.
 */
import type { AuthRequest } from "@cloudflare/workers-oauth-provider";
import { type ResourcePath, resourceFacts } from "../resources";
import { normalizeScopes, type Scope, tickedByDefault } from "../scopes";

/** Why a request's scopes cannot be offered at all: it asks only for scopes its resource does not serve. */
export function unservedScopes(path: ResourcePath, request: AuthRequest): string | undefined {
  const asked = normalizeScopes(request.scope);
  const { name, serves } = resourceFacts(path);
  if (asked.length === 0 || asked.some((scope) => serves.includes(scope))) return undefined;
  return `${name} serves none of the scopes asked for (${asked.join(" ")}); it serves ${serves.join(" ")}`;
}

/**
 * What the consent page offers: the known scopes asked for that the resource serves, or — when none
 * are asked — all it serves; never more than the sign-in may grant (`cap`: a scoped API token's own,
 * null = all).
 */
export function offeredScopes(path: ResourcePath, request: AuthRequest, cap: readonly string[] | null): Scope[] {
  const serves = resourceFacts(path).serves;
  const asked = normalizeScopes(request.scope);
  const wanted = asked.length > 0 ? asked.filter((scope) => serves.includes(scope)) : [...serves];
  return cap === null ? wanted : wanted.filter((scope) => cap.includes(scope));
}

/**
 * What consent remembered for this client, redirect URI and resource grants without asking again,
 * or undefined when the page must be shown. Scopes the request asked for must all have been
 * approved; a request that asked for none needs the approval of every scope that starts ticked, and
 * gets what was approved of the offer (gateway:admin only if the user ticked it then).
 */
export function rememberedGrant(
  request: AuthRequest,
  offered: readonly Scope[],
  remembered: readonly string[] | undefined,
): Scope[] | undefined {
  if (!remembered) return undefined;
  const needed = normalizeScopes(request.scope).length > 0 ? offered : offered.filter(tickedByDefault);
  if (needed.length === 0 || !needed.every((scope) => remembered.includes(scope))) return undefined;
  return offered.filter((scope) => remembered.includes(scope));
}

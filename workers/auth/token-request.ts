/**
 * Which client a token-endpoint request speaks for, as the library reads it: HTTP Basic
 * credentials first, else the `client_id` field, else the `iss` of a `private_key_jwt` client
 * assertion (whose `client_id` may be omitted). Read before the library runs, unverified: it only
 * chooses what our own checks look at (the metadata document to fetch, the grant's client).
 */
import { isJsonObject } from "../lib/json";

function basicClientId(request: Request): string | undefined {
  const match = /^basic\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
  if (!match) return undefined;
  try {
    const [id] = atob(match[1]!).split(":");
    return id ? decodeURIComponent(id.replace(/\+/g, " ")) : undefined;
  } catch {
    return undefined;
  }
}

function assertionIssuer(assertion: string | null): string | undefined {
  const payload = assertion?.split(".")[1];
  if (!payload) return undefined;
  try {
    const claims: unknown = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    return isJsonObject(claims) && typeof claims["iss"] === "string" ? claims["iss"] : undefined;
  } catch {
    return undefined;
  }
}

export function presentedClientId(request: Request, form: URLSearchParams): string | undefined {
  return basicClientId(request) ?? (form.get("client_id") || undefined) ?? assertionIssuer(form.get("client_assertion"));
}

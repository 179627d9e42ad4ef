/**
 * RFC 9728 Protected Resource Metadata for each resource of an origin, at
 * `/.well-known/oauth-protected-resource` (the root) and `/.well-known/oauth-protected-resource<path>`.
 * `scopes_supported` is the resource's baseline — what any access needs, so clients ask for it
 * first — never the whole catalogue, which the authorization server metadata lists.
 */
import { type ResourcePath, resourceFacts, resourceUrl } from "./resources";

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: string[];
  resource_name: string;
}

export function protectedResourceMetadata(issuer: string, path: ResourcePath): ProtectedResourceMetadata {
  const facts = resourceFacts(path);
  return {
    resource: resourceUrl(issuer, path),
    authorization_servers: [issuer],
    ...(facts.baseline.length > 0 ? { scopes_supported: [...facts.baseline] } : {}),
    bearer_methods_supported: ["header"],
    resource_name: facts.name,
  };
}

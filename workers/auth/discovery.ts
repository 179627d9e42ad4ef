/**
 * RFC 9728 Protected Resource Metadata for each resource of an origin, at
 * `/.well-known/oauth-protected-resource` (the root) and `/.well-known/oauth-protected-resource<path>`.
 * `scopes_supported` is what a first sign-in asks for, as the 401 says it (default-scopes-settings.ts):
 * every scope the MCP server's tools use unless the operator narrowed it — never the whole
 * catalogue, which the authorization server metadata lists; none for /api and the root.
 */
import { defaultScopes } from "./default-scopes-settings";
import { type ResourcePath, resourceFacts, resourceUrl } from "./resources";

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: string[];
  resource_name: string;
}

export function protectedResourceMetadata(
  issuer: string,
  path: ResourcePath,
  env: Pick<Env, "OAUTH_DEFAULT_SCOPES">,
): ProtectedResourceMetadata {
  const asked = defaultScopes(env, path);
  return {
    resource: resourceUrl(issuer, path),
    authorization_servers: [issuer],
    ...(asked.length > 0 ? { scopes_supported: [...asked] } : {}),
    bearer_methods_supported: ["header"],
    resource_name: resourceFacts(path).name,
  };
}

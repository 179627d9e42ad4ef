/**
 * The outbound MCP client's OAuth (the MCP authorization spec, client side), as the SDK's client
 * auth provides it: `auth()` runs Protected Resource Metadata and authorization server discovery,
 * client identification (a Client ID Metadata Document, else Dynamic Client Registration), PKCE
 * S256, RFC 8707 `resource`, the code exchange with RFC 9207 `iss` checks, and refresh. Domain code
 * (workers/upstream-connections/) reaches the SDK only through here.
 */
export {
  auth as runOAuth,
  AuthorizationServerMismatchError,
  discoverOAuthServerInfo,
  extractWWWAuthenticateParams,
  IssuerMismatchError,
  OAuthError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";

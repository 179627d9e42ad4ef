/**
 * What a test tells the hostile OAuth server (hostile-oauth.ts) about one case, and what the server
 * recorded of it — shared by the server (Node) and the tests (workerd), so it holds types only.
 */

/** Sends the browser on to another (honest) authorization server, as a mix-up attacker does. */
export interface Relay {
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  resource: string;
  scope: string;
}

export interface HostileCase {
  /** The attacker's authorization server: relay to an honest one instead of answering. */
  relay?: Relay | undefined;
  /** Answer the authorization request at once with this error (and its description) instead of a code. */
  authorizeError?: { error: string; error_description: string } | undefined;
  /** Answer every token request with this. */
  tokenAnswer?: { status: number; contentType: string; body: string } | undefined;
  /** Advertise RFC 9207 `iss` support in the authorization server's metadata (and send `iss`). */
  advertiseIss?: boolean | undefined;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: string;
}

export interface CaseRecord {
  /** Every request under the case's paths and well-known documents, in order. */
  requests: RecordedRequest[];
}

/**
 * The relying-party side of sign-in with an OpenID Connect provider, on `oauth4webapi` (a
 * maintained, certified client for Web-interoperable runtimes — no JOSE of our own):
 * discovery, the authorization URL (code flow, PKCE S256, state, nonce) and the code exchange with
 * every ID Token check — issuer, audience, expiry, nonce, authorized party, and the signature
 * against the provider's JWKS (checked here too, although the token comes straight from the token
 * endpoint, so a provider whose keys were swapped cannot sign anyone in).
 *
 * Failures are `OidcFailure`s of three kinds the pages tell apart: the provider cannot be reached,
 * it refused (the user declined, or it did not accept the client), or it answered something that
 * did not validate. None of them ever signs anyone in.
 */
import * as oauth from "oauth4webapi";
import { BoundedCache } from "../../lib/bounded-cache";
import type { OidcSettings } from "./oidc-settings";

export type OidcFailureKind = "unreachable" | "refused" | "invalid_response";

export class OidcFailure extends Error {
  override readonly name = "OidcFailure";
  constructor(
    readonly kind: OidcFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** Who signed in: the provider's issuer and stable subject, and the claims a user name comes from. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  claims: { preferred_username?: string; nickname?: string; name?: string; email?: string };
}

export const OIDC_SCOPE = "openid profile email";
/** Discovery documents change rarely; a provider that moved its endpoints is picked up within this. */
const METADATA_SECONDS = 10 * 60;
/** One provider is configured; a changed OIDC_ISSUER is another key. */
const MAX_PROVIDERS = 4;
const TIMEOUT_MS = 10_000;

interface KnownProvider {
  metadata: oauth.AuthorizationServer;
  /** oauth4webapi's JWKS cache for this provider, filled by the first signature check. */
  jwks: oauth.JWKSCacheInput;
}

/** What the isolate knows of each provider by issuer, for METADATA_SECONDS: its discovery document and keys. */
export type OpenIdProviders = BoundedCache<string, KnownProvider>;

export function openIdProviders(): OpenIdProviders {
  return new BoundedCache({ maxEntries: MAX_PROVIDERS, ttlMs: METADATA_SECONDS * 1000 });
}

function requestOptions(settings: OidcSettings): { signal: AbortSignal; [oauth.allowInsecureRequests]?: boolean } {
  return { signal: AbortSignal.timeout(TIMEOUT_MS), ...(settings.insecureLoopback ? { [oauth.allowInsecureRequests]: true } : {}) };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The provider's metadata (kept by the isolate); `unreachable` when it cannot be fetched or is not the configured issuer's. */
async function known(settings: OidcSettings, providers: OpenIdProviders): Promise<KnownProvider> {
  const key = settings.issuer.href;
  const kept = providers.get(key);
  if (kept) return kept;
  try {
    const response = await oauth.discoveryRequest(settings.issuer, { algorithm: "oidc", ...requestOptions(settings) });
    const metadata = await oauth.processDiscoveryResponse(settings.issuer, response);
    if (typeof metadata.authorization_endpoint !== "string" || typeof metadata.token_endpoint !== "string") {
      throw new Error("its discovery document names no authorization or token endpoint");
    }
    const entry: KnownProvider = { metadata, jwks: {} };
    providers.set(key, entry);
    return entry;
  } catch (error) {
    throw new OidcFailure("unreachable", `${settings.displayName} could not be reached (${reason(error)})`);
  }
}

function client(settings: OidcSettings): { client: oauth.Client; auth: oauth.ClientAuth } {
  return {
    client: { client_id: settings.clientId },
    auth: settings.clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(settings.clientSecret),
  };
}

/** The secrets of one sign-in, kept by this server (never sent to the provider but as the challenge). */
export interface SignInSecrets {
  verifier: string;
  nonce: string;
}

export function newSignInSecrets(): SignInSecrets {
  return { verifier: oauth.generateRandomCodeVerifier(), nonce: oauth.generateRandomNonce() };
}

/** The configured provider as this server's sign-in uses it: its settings, and what the isolate knows of it (`providers`). */
export class OpenIdProvider {
  constructor(
    readonly settings: OidcSettings,
    private readonly providers: OpenIdProviders,
  ) {}

  /** The provider's origin: the consent page's form posts there (its answer redirects to the provider). */
  async origin(): Promise<string> {
    return new URL(String((await known(this.settings, this.providers)).metadata.authorization_endpoint)).origin;
  }

  authorizationUrl(options: { redirectUri: string; state: string; secrets: SignInSecrets }): Promise<URL> {
    return authorizationUrl(this.settings, this.providers, options);
  }

  /** The provider's redirect back to us, redeemed: who signed in. */
  redeem(callback: URL, expected: { state: string; redirectUri: string; secrets: SignInSecrets }): Promise<OidcIdentity> {
    return redeemCallback(this.settings, this.providers, callback, expected);
  }
}

async function authorizationUrl(
  settings: OidcSettings,
  providers: OpenIdProviders,
  options: { redirectUri: string; state: string; secrets: SignInSecrets },
): Promise<URL> {
  const { metadata } = await known(settings, providers);
  const url = new URL(String(metadata.authorization_endpoint));
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", settings.clientId);
  url.searchParams.set("redirect_uri", options.redirectUri);
  url.searchParams.set("scope", OIDC_SCOPE);
  url.searchParams.set("state", options.state);
  url.searchParams.set("nonce", options.secrets.nonce);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(options.secrets.verifier));
  url.searchParams.set("code_challenge_method", "S256");
  return url;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/**
 * Finishes the provider's redirect back to us: checks the response (state, and `iss` when the
 * provider sends it), redeems the code with the PKCE verifier, validates the ID Token, and
 * returns who signed in.
 */
async function redeemCallback(
  settings: OidcSettings,
  providers: OpenIdProviders,
  callback: URL,
  expected: { state: string; redirectUri: string; secrets: SignInSecrets },
): Promise<OidcIdentity> {
  const { metadata, jwks } = await known(settings, providers);
  const { client: rp, auth } = client(settings);
  let parameters: URLSearchParams;
  try {
    parameters = oauth.validateAuthResponse(metadata, rp, callback, expected.state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      const described = error.error_description ? ` (${error.error_description})` : "";
      throw new OidcFailure("refused", `${settings.displayName} did not sign you in: ${error.error}${described}`);
    }
    throw new OidcFailure("invalid_response", `${settings.displayName} answered with an invalid sign-in response: ${reason(error)}`);
  }
  let response: Response;
  try {
    response = await oauth.authorizationCodeGrantRequest(
      metadata,
      rp,
      auth,
      parameters,
      expected.redirectUri,
      expected.secrets.verifier,
      requestOptions(settings),
    );
  } catch (error) {
    throw new OidcFailure("unreachable", `${settings.displayName} could not be reached to finish the sign-in (${reason(error)})`);
  }
  let claims: oauth.IDToken | undefined;
  try {
    const tokens = await oauth.processAuthorizationCodeResponse(metadata, rp, response, {
      expectedNonce: expected.secrets.nonce,
      requireIdToken: true,
    });
    await oauth.validateApplicationLevelSignature(metadata, response, { ...requestOptions(settings), [oauth.jwksCache]: jwks });
    claims = oauth.getValidatedIdTokenClaims(tokens);
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) {
      const described = error.error_description ? ` (${error.error_description})` : "";
      throw new OidcFailure("refused", `${settings.displayName} refused to finish the sign-in: ${error.error}${described}`);
    }
    if (error instanceof oauth.WWWAuthenticateChallengeError) {
      // A challenge instead of a token: the provider did not accept this server's client credentials.
      const challenge = error.cause[0]?.parameters;
      const described = challenge?.error_description ? ` (${challenge.error_description})` : "";
      throw new OidcFailure(
        "refused",
        `${settings.displayName} refused to finish the sign-in: ${challenge?.error ?? "invalid_client"}${described}`,
      );
    }
    // fetch's own failure (the JWKS could not be read); oauth4webapi's argument errors carry a code.
    if (error instanceof TypeError && !("code" in error)) {
      throw new OidcFailure("unreachable", `${settings.displayName} could not be reached to check the sign-in (${reason(error)})`);
    }
    throw new OidcFailure("invalid_response", `${settings.displayName} returned an ID token that is not valid: ${reason(error)}`);
  }
  if (!claims) throw new OidcFailure("invalid_response", `${settings.displayName} returned no ID token`);
  return {
    issuer: claims.iss,
    subject: claims.sub,
    claims: {
      preferred_username: optionalString(claims["preferred_username"]),
      nickname: optionalString(claims["nickname"]),
      name: optionalString(claims["name"]),
      email: optionalString(claims["email"]),
    },
  };
}

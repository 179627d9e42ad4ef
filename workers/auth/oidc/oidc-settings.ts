/**
 * The external OpenID Connect provider users may sign in with, from the Worker's variables:
 * OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_NAME and the secret OIDC_CLIENT_SECRET. An empty OIDC_ISSUER
 * turns the sign-in method off; a set but unusable configuration is an error naming the variable,
 * shown on the sign-in page (the operator's mistake must not look like the user's).
 */
import { AppError } from "../../lib/errors";

export interface OidcSettings {
  /** The issuer identifier, exactly as the provider's discovery document must state it. */
  issuer: URL;
  clientId: string;
  /** Undefined: a public client (PKCE only, no client authentication). */
  clientSecret: string | undefined;
  /** What the sign-in button names: OIDC_NAME, else the issuer's host name. */
  displayName: string;
  /** Plain http is allowed only for a loopback issuer (a provider run locally, as in the tests). */
  insecureLoopback: boolean;
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

type OidcVariables = Pick<Env, "OIDC_ISSUER" | "OIDC_CLIENT_ID" | "OIDC_NAME" | "OIDC_CLIENT_SECRET">;

export function oidcConfigured(env: OidcVariables): boolean {
  return (env.OIDC_ISSUER ?? "").trim() !== "";
}

/** The provider's name on the sign-in page, even when the rest of the configuration is unusable. */
export function oidcDisplayName(env: OidcVariables): string {
  const name = (env.OIDC_NAME ?? "").trim();
  if (name !== "") return name;
  try {
    return new URL((env.OIDC_ISSUER ?? "").trim()).hostname;
  } catch {
    return "OpenID Connect";
  }
}

function misconfigured(reason: string): AppError {
  return new AppError("unavailable", `Sign-in with OpenID Connect is not set up correctly: ${reason}. Tell the operator of this server.`);
}

/** The provider's settings; throws `unavailable` naming what is wrong when they cannot be used. */
export function oidcSettings(env: OidcVariables): OidcSettings {
  const raw = (env.OIDC_ISSUER ?? "").trim();
  if (raw === "") throw misconfigured("OIDC_ISSUER is not set");
  let issuer: URL;
  try {
    issuer = new URL(raw);
  } catch {
    throw misconfigured("OIDC_ISSUER is not a URL");
  }
  const insecureLoopback = issuer.protocol === "http:" && LOOPBACK_HOST.test(issuer.hostname);
  if (issuer.protocol !== "https:" && !insecureLoopback) throw misconfigured("OIDC_ISSUER must be an https URL");
  if (issuer.search !== "" || issuer.hash !== "" || issuer.username !== "" || issuer.password !== "") {
    throw misconfigured("OIDC_ISSUER must have no query, fragment or credentials");
  }
  const clientId = (env.OIDC_CLIENT_ID ?? "").trim();
  if (clientId === "") throw misconfigured("OIDC_CLIENT_ID is not set");
  const secret = env.OIDC_CLIENT_SECRET?.trim();
  return {
    issuer,
    clientId,
    clientSecret: secret ? secret : undefined,
    displayName: oidcDisplayName(env),
    insecureLoopback,
  };
}

/**
 * A real OpenID Provider for the tests: the certified `oidc-provider` package on loopback, with its
 * development login and consent pages (any login signs in as the subject of that name). The auth
 * project's Worker is configured with it (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET) and
 * reaches it from workerd like any issuer; the tests drive its pages as a browser would.
 *
 * Two test controls sit beside the provider (never part of a real one):
 * - `PUT /test-control/accounts/<sub>` sets the claims of a subject (default: preferred_username = sub);
 * - `PUT /test-control/tamper/<code>` makes the token response for that authorization code carry
 *   an ID token with other claims (a wrong `aud`, `nonce`, `iss`, …) or signed by a key that is not
 *   in the provider's JWKS — a provider that returns a bad token, to prove the Worker refuses it.
 *   Keyed by the code, so tests running at the same time never see each other's tampering.
 */
import { createServer, type Server } from "node:http";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT, decodeJwt } from "jose";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";
import { listenOnLoopback, readBody } from "./node-http";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_REDIRECT_URI } from "./oidc-test-client";

interface Tamper {
  /** Claims to set (or, with the value null, remove) in the ID token before it is re-signed. */
  claims?: Record<string, unknown>;
  /** Sign with a key the provider never published. */
  foreignKey?: boolean;
}

async function signingKey(kid: string): Promise<{ privateKey: CryptoKey; publicJwk: JWK; privateJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  return { privateKey, publicJwk, privateJwk };
}

async function resign(
  idToken: string,
  tamper: Tamper,
  own: { privateKey: CryptoKey; kid: string },
  foreign: { privateKey: CryptoKey; kid: string },
): Promise<string> {
  const payload: JWTPayload = { ...decodeJwt(idToken) };
  for (const [claim, value] of Object.entries(tamper.claims ?? {})) {
    if (value === null) delete payload[claim];
    else payload[claim] = value;
  }
  // The foreign key claims the provider's own kid: only the signature can tell them apart.
  const key = tamper.foreignKey ? foreign.privateKey : own.privateKey;
  return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: own.kid }).sign(key);
}

export async function startOidcProvider(port: number): Promise<Server> {
  const issuer = `http://127.0.0.1:${port}`;
  const own = await signingKey("test-signing-key");
  const foreign = await signingKey("test-foreign-key");
  const accounts = new Map<string, Record<string, unknown>>();
  const tampers = new Map<string, Tamper>();

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [OIDC_REDIRECT_URI],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [own.privateJwk] },
    // Profile claims in the ID token itself (many providers do this): the Worker names new users from them.
    conformIdTokenClaims: false,
    claims: { openid: ["sub"], profile: ["name", "preferred_username"], email: ["email", "email_verified"] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, preferred_username: sub, ...accounts.get(sub) }),
    }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["test-only-cookie-key"] },
  });

  provider.use(async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>) => {
    await next();
    if (ctx.oidc?.route !== "token" || ctx.status !== 200) return;
    const body: unknown = ctx.body;
    const code = ctx.oidc.params?.["code"];
    const tamper = typeof code === "string" ? tampers.get(code) : undefined;
    if (!tamper || typeof body !== "object" || body === null || !("id_token" in body) || typeof body.id_token !== "string") return;
    ctx.body = {
      ...body,
      id_token: await resign(
        body.id_token,
        tamper,
        { privateKey: own.privateKey, kid: own.publicJwk.kid! },
        { privateKey: foreign.privateKey, kid: foreign.publicJwk.kid! },
      ),
    };
  });

  const app = provider.callback();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const control = /^\/test-control\/(accounts|tamper)\/(.+)$/.exec(url.pathname);
    if (!control || req.method !== "PUT") {
      app(req, res);
      return;
    }
    readBody(req).then(
      (text) => {
        const key = decodeURIComponent(control[2]!);
        const value: unknown = JSON.parse(text);
        if (control[1] === "accounts") accounts.set(key, value as Record<string, unknown>);
        else tampers.set(key, value as Tamper);
        res.writeHead(204).end();
      },
      () => res.writeHead(400).end(),
    );
  });
  return listenOnLoopback(server, port);
}

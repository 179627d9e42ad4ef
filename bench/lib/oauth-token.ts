/**
 * An OAuth access token for the bench user, got the way a client gets one: register (DCR), open
 * /authorize, sign in with the bench user's API token, approve, redeem the code with PKCE. Plain
 * HTTP from Node with a small cookie jar, against the Worker under test.
 */
import { createHash, randomBytes } from "node:crypto";

const REDIRECT = "http://127.0.0.1:9/callback";

function hiddenFields(html: string, marker: string): [string, string][] {
  const form = html.split("<form").find((part) => part.includes(`value="${marker}"`)) ?? "";
  const unescape = (value: string) => value.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
  return [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [match[1]!, unescape(match[2]!)]);
}

export async function oauthAccessToken(base: URL, apiToken: string, scope: string, resourcePath: string): Promise<string> {
  const cookies = new Map<string, string>();
  const send = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(new URL(path, base), { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const index = pair!.indexOf("=");
      cookies.set(pair!.slice(0, index), pair!.slice(index + 1));
    }
    return response;
  };
  const form = (fields: [string, string][]) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: base.origin },
    body: new URLSearchParams(fields).toString(),
  });

  const registered = await send("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "mcp-edge bench",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }),
  });
  if (registered.status !== 201) throw new Error(`bench OAuth: registration answered ${registered.status}: ${await registered.text()}`);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };

  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const authorize = new URL("/authorize", base);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: "bench",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: new URL(resourcePath, base).href,
  })) {
    authorize.searchParams.set(name, value);
  }
  const signIn = await send(authorize.pathname + authorize.search);
  const signedIn = await send("/authorize", form([...hiddenFields(await signIn.text(), "api_token"), ["token", apiToken]]));
  if (signedIn.status !== 303) throw new Error(`bench OAuth: sign-in answered ${signedIn.status}`);
  const consent = await send(signedIn.headers.get("location")!);
  const approved = await send(
    "/authorize",
    form([
      ...hiddenFields(await consent.text(), "consent"),
      ["decision", "approve"],
      ...scope.split(" ").map((s): [string, string] => ["scope", s]),
    ]),
  );
  const code = approved.headers.get("location") ? new URL(approved.headers.get("location")!).searchParams.get("code") : null;
  if (!code) throw new Error(`bench OAuth: consent answered ${approved.status} without a code`);

  const token = await send(
    "/oauth/token",
    form([
      ["grant_type", "authorization_code"],
      ["code", code],
      ["client_id", clientId],
      ["redirect_uri", REDIRECT],
      ["code_verifier", verifier],
    ]),
  );
  if (token.status !== 200) throw new Error(`bench OAuth: token endpoint answered ${token.status}: ${await token.text()}`);
  return ((await token.json()) as { access_token: string }).access_token;
}

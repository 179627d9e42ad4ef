/**
 * What the consent page says about the client asking, for every way to it (/authorize, and the
 * consent shown before signing in at the OpenID provider): the library's description of the
 * client and its redirect, and whether it is this server's own console (console-client.ts).
 */
import type { AuthRequest, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { isConsoleClient } from "../console-client";
import type { ConsentFacts } from "./pages";

export type ClientFacts = Pick<
  ConsentFacts,
  "clientName" | "clientId" | "clientDomain" | "redirectUri" | "redirectHost" | "redirectIsLoopback" | "firstParty"
>;

export async function clientFacts(oauth: OAuthHelpers, issuer: string, env: Env, request: AuthRequest): Promise<ClientFacts> {
  const details = await oauth.describeConsent(request);
  return {
    clientName: details.clientName,
    clientId: details.clientId,
    clientDomain: details.clientDomain,
    redirectUri: details.redirectUri,
    redirectHost: details.redirectHost,
    redirectIsLoopback: details.redirectIsLoopback,
    firstParty: await isConsoleClient(issuer, env, request.clientId),
  };
}

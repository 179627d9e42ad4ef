/**
 * Vitest global setup of the `auth` project, on the ports vitest.config.ts reserved: the Client ID
 * Metadata Document server, the OpenID Provider users sign in with, the notes upstream (an
 * OAuth-protected MCP server whose authorization server is another issuer), the same again with an
 * authorization server that does not send RFC 9207 `iss`, and the hostile OAuth server.
 */
import { startMetadataDocumentServer } from "./metadata-documents";
import { startHostileOAuth } from "./hostile-oauth";
import { startNotesUpstream } from "./oauth-resource-server";
import { startOidcProvider } from "./oidc-provider";
import { reserveUpstreamPorts } from "./ports";

export default async function setup(): Promise<() => Promise<void>> {
  const ports = await reserveUpstreamPorts();
  const servers = (
    await Promise.all([
      startMetadataDocumentServer(ports.metadataDocuments).then((server) => [server]),
      startOidcProvider(ports.oidcProvider).then((server) => [server]),
      startNotesUpstream(ports.notesIssuer, ports.notesServer),
      startNotesUpstream(ports.plainIssuer, ports.plainServer, { withoutIss: true }),
      startHostileOAuth(ports.hostileOAuth).then((server) => [server]),
    ])
  ).flat();
  return () => Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done())))).then(() => undefined);
}

/**
 * Vitest global setup of the `auth` project, on the ports vitest.config.ts reserved: the Client ID
 * Metadata Document server and the OpenID Provider users sign in with.
 */
import { startMetadataDocumentServer } from "./metadata-documents";
import { startOidcProvider } from "./oidc-provider";
import { reserveUpstreamPorts } from "./ports";

export default async function setup(): Promise<() => Promise<void>> {
  const ports = await reserveUpstreamPorts();
  const servers = await Promise.all([startMetadataDocumentServer(ports.metadataDocuments), startOidcProvider(ports.oidcProvider)]);
  return () => Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done())))).then(() => undefined);
}

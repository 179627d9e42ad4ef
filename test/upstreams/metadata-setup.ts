/** Vitest global setup of the `auth` project: the Client ID Metadata Document server, on the port vitest.config.ts reserved. */
import { startMetadataDocumentServer } from "./metadata-documents";
import { reserveUpstreamPorts } from "./ports";

export default async function setup(): Promise<() => Promise<void>> {
  const server = await startMetadataDocumentServer((await reserveUpstreamPorts()).metadataDocuments);
  return () => new Promise<void>((done) => server.close(() => done()));
}

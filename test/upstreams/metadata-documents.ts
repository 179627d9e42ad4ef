/**
 * A real HTTP server for Client ID Metadata Documents in the tests. Tests (in workerd) store a
 * document with `PUT /documents/<path>` (JSON: { body, status?, contentType? }) and the authorization
 * server fetches it as `https://<METADATA_TEST_HOST>/<path>`: vitest.config.ts routes that reserved
 * test hostname, and only it, to this server (Miniflare's outboundService); every other outbound
 * request passes through untouched. Production never sees either.
 */
import { createServer, type Server } from "node:http";
import { listenOnLoopback } from "./node-http";

/** A reserved name (RFC 6761 `.test`): it can never resolve to a real host. */
export const METADATA_TEST_HOST = "client-metadata.test";

interface StoredDocument {
  body: string;
  status: number;
  contentType: string;
}

export function startMetadataDocumentServer(port: number): Promise<Server> {
  const documents = new Map<string, StoredDocument>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (req.method === "PUT" && url.pathname.startsWith("/documents/")) {
        const stored = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Partial<StoredDocument> & { body: string };
        documents.set(url.pathname.slice("/documents".length), { body: stored.body, status: stored.status ?? 200, contentType: stored.contentType ?? "application/json" });
        res.writeHead(204).end();
        return;
      }
      const document = req.method === "GET" ? documents.get(url.pathname) : undefined;
      if (!document) {
        res.writeHead(404, { "content-type": "text/plain" }).end("no such document");
        return;
      }
      res.writeHead(document.status, { "content-type": document.contentType, "cache-control": "no-store" }).end(document.body);
    });
  });
  return listenOnLoopback(server, port);
}

/**
 * Miniflare's outbound handler: requests to the metadata test host go to the local server (as
 * plain http on loopback), everything else goes out unchanged.
 */
export function routeMetadataHost(port: number): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const target = url.hostname === METADATA_TEST_HOST ? new URL(`${url.pathname}${url.search}`, `http://127.0.0.1:${port}`) : url;
    // Node's fetch wants a streamed body declared half-duplex; buffering it is simpler and the
    // bodies here are small. Responses still stream (SSE upstreams).
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    return fetch(target, { method: request.method, headers: request.headers, body, redirect: "manual", signal: request.signal });
  };
}

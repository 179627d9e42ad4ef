/**
 * A real HTTP server for Client ID Metadata Documents in the tests. Tests (in workerd) store a
 * document with `PUT /documents/<path>` (JSON: { body, status?, contentType?, location? }) and the
 * authorization server fetches it as `https://<METADATA_TEST_HOST>/<path>`: vitest.config.ts routes
 * that reserved test hostname, and only it, to this server (Miniflare's outboundService); every other
 * outbound request passes through untouched. Production never sees either. The server counts the
 * GETs of each path (`GET /hits/<path>` answers `{ "hits": n }`), so a test can prove an address was
 * never fetched — also when a redirect names this server by its loopback address.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./node-http";

/** A reserved name (RFC 6761 `.test`): it can never resolve to a real host. */
export const METADATA_TEST_HOST = "client-metadata.test";

interface StoredDocument {
  body: string;
  status: number;
  contentType: string;
  /** A redirect's target (sent as `Location`). */
  location: string | undefined;
}

export function startMetadataDocumentServer(port: number): Promise<Server> {
  const documents = new Map<string, StoredDocument>();
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (req.method === "PUT" && url.pathname.startsWith("/documents/")) {
        const stored = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Partial<StoredDocument> & { body: string };
        documents.set(url.pathname.slice("/documents".length), {
          body: stored.body,
          status: stored.status ?? 200,
          contentType: stored.contentType ?? "application/json",
          location: stored.location,
        });
        res.writeHead(204).end();
        return;
      }
      if (req.method === "GET" && url.pathname.startsWith("/hits/")) {
        const count = hits.get(url.pathname.slice("/hits".length)) ?? 0;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ hits: count }));
        return;
      }
      if (req.method === "GET") hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
      const document = req.method === "GET" ? documents.get(url.pathname) : undefined;
      if (!document) {
        res.writeHead(404, { "content-type": "text/plain" }).end("no such document");
        return;
      }
      const redirect = document.location ? { location: document.location } : {};
      const headers = { "content-type": document.contentType, "cache-control": "no-store", ...redirect };
      res.writeHead(document.status, headers).end(document.body);
    });
  });
  return listenOnLoopback(server, port);
}

/**
 * Miniflare's outbound handler: requests to the metadata test host go to the local server (as
 * plain http on loopback), everything else goes out unchanged (every other host the auth tests
 * reach is plain http on loopback). A Node handler, passing bytes through as they come: an answer
 * whose connection breaks off reaches the Worker broken off too (a fetch handler's body error
 * would be ended as if complete, leaving the Worker waiting for the rest of a declared length).
 * A connection that cannot be made is answered 500, as before.
 */
export function routeMetadataHost(port: number): { node: (req: IncomingMessage, res: ServerResponse) => void } {
  return {
    node: (req, res) => {
      const original = new URL(`http://${req.headers.host ?? "localhost"}`);
      const toDocuments = original.hostname === METADATA_TEST_HOST;
      const headers = { ...req.headers };
      // Miniflare's routing header, not part of the Worker's request.
      delete headers["mf-custom-node-service"];
      let answered = false;
      const outgoing = request(
        {
          host: toDocuments ? "127.0.0.1" : original.hostname,
          port: toDocuments ? port : Number(original.port || 80),
          method: req.method,
          path: req.url,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
          answer.pipe(res);
          answer.on("end", () => {
            answered = true;
          });
          answer.on("close", () => {
            if (!answer.complete) res.destroy();
          });
        },
      );
      outgoing.on("error", (error) => {
        if (res.headersSent) res.destroy();
        else res.writeHead(500, { "content-type": "text/plain" }).end(error.message);
      });
      // The Worker gave up on its request (aborted, timed out): so does the request it made.
      res.on("close", () => {
        if (!answered) outgoing.destroy();
      });
      req.pipe(outgoing);
    },
  };
}

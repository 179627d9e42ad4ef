/**
 * A loopback-only forwarding proxy that adds `Authorization: Bearer <token>` to requests that carry
 * none, and changes nothing else: method, path, body, Host and Origin reach the Worker exactly as the
 * client sent them (the dns-rebinding scenario depends on that), and responses stream back unbuffered
 * (SSE).
 *
 * Why it exists: the conformance CLI (0.1.16) builds its server-mode client from a bare URL, with no
 * way to send headers, while every real MCP endpoint here requires a token. Adding the header outside
 * the Worker keeps production auth exactly as it is; nothing in the Worker knows this proxy exists.
 */
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from "node:http";

export interface AuthProxy {
  /** http://127.0.0.1:<port>: the suite's DNS-rebinding checks need a loopback URL. */
  origin: string;
  close(): Promise<void>;
}

export function startAuthProxy(upstream: string, token: string): Promise<AuthProxy> {
  const target = new URL(upstream);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers };
    headers.authorization ??= `Bearer ${token}`;
    const upstreamReq = forward({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      upstreamRes.pipe(res);
    });
    upstreamReq.on("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`auth proxy: ${error.message}`);
    });
    // The client hanging up (e.g. cancelling an SSE read) must end the upstream exchange too.
    res.on("close", () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

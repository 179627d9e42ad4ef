/**
 * A switch in front of a test authorization server's token endpoint: refreshes of one client fail
 * the way a real server fails for a while — an HTTP status with a body (and Retry-After), or no
 * answer at all — while every other client and every other grant is served as usual (test files
 * run at the same time against the same server). Never part of a real server.
 *
 * - `PUT /test-control/token-fault/<client_id>` with JSON `{ status, body?, contentType?, retryAfter? }`,
 *   `{ hang: true }` (the request is held, unanswered) or `{ breakOff: true }` (a 200's headers and
 *   part of its body, then the connection closes);
 * - `DELETE` the same path ends the fault and answers `{ failed }`, how many refreshes it failed
 *   (held ones included); requests still held are then answered 503.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { readBody } from "./node-http";
import type { TokenFault } from "./token-fault";

const CONTROL = /^\/test-control\/token-fault\/(.+)$/;

/** The client a token request is from: `client_id` in the form, else the user of HTTP Basic. */
function clientOf(req: IncomingMessage, form: URLSearchParams): string | undefined {
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
  return form.get("client_id") ?? (basic ? decodeURIComponent(Buffer.from(basic, "base64").toString("utf8").split(":")[0]!) : undefined);
}

export function withTokenFaults(app: RequestListener, base: string, tokenPath: string): RequestListener {
  const faults = new Map<string, TokenFault>();
  const held = new Map<string, Set<ServerResponse>>();
  const failed = new Map<string, number>();

  const control = (req: IncomingMessage, res: ServerResponse, clientId: string) => {
    readBody(req).then(
      (text) => {
        if (req.method === "PUT") {
          faults.set(clientId, JSON.parse(text) as TokenFault);
          failed.set(clientId, 0);
          return void res.writeHead(204).end();
        }
        faults.delete(clientId);
        for (const waiting of held.get(clientId) ?? []) waiting.writeHead(503, { "content-type": "text/plain" }).end("released");
        held.delete(clientId);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ failed: failed.get(clientId) ?? 0 }));
        failed.delete(clientId);
      },
      () => res.writeHead(400).end(),
    );
  };

  const fail = (res: ServerResponse, clientId: string, fault: TokenFault) => {
    failed.set(clientId, (failed.get(clientId) ?? 0) + 1);
    if ("hang" in fault) {
      const set = held.get(clientId) ?? new Set();
      held.set(clientId, set.add(res));
      res.on("close", () => set.delete(res));
      return;
    }
    if ("breakOff" in fault) {
      const start = '{"access_token":"';
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store", "content-length": String(start.length + 400) });
      // Part of the declared length, then the connection goes: the reader sees the body end early.
      res.write(start, () => res.destroy());
      return;
    }
    const headers: Record<string, string> = { "content-type": fault.contentType ?? "application/json", "cache-control": "no-store" };
    if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
    res.writeHead(fault.status, headers).end(fault.body ?? "");
  };

  return (req, res) => {
    const url = new URL(req.url ?? "/", base);
    const clientControl = CONTROL.exec(url.pathname);
    if (clientControl && (req.method === "PUT" || req.method === "DELETE")) return control(req, res, decodeURIComponent(clientControl[1]!));
    if (faults.size === 0 || req.method !== "POST" || url.pathname !== tokenPath) return app(req, res);
    readBody(req).then(
      (text) => {
        const form = new URLSearchParams(text);
        const clientId = clientOf(req, form);
        const fault = form.get("grant_type") === "refresh_token" && clientId !== undefined ? faults.get(clientId) : undefined;
        if (fault) return fail(res, clientId!, fault);
        // The body is read: the provider takes it from `req.body` (its documented fallback for a parsed body).
        Object.assign(req, { body: text });
        app(req, res);
      },
      () => res.writeHead(400).end(),
    );
  };
}

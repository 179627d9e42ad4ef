/**
 * The bridge's HTTP plumbing: JSON answers, JSON-RPC error bodies and bounded request bodies.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonRpcMessage } from "./process";

export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function rpcError(id: JsonRpcMessage["id"], code: number, message: string, data?: unknown): JsonRpcMessage {
  return { jsonrpc: "2.0", id: id ?? null, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** The body as text, or undefined when it is larger than MAX_BODY_BYTES (the request is then dropped). */
export function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export function isRequest(message: JsonRpcMessage): boolean {
  return typeof message.method === "string" && message.id !== undefined && message.id !== null;
}

export function writeEvent(stream: ServerResponse, message: JsonRpcMessage): void {
  stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/**
 * The two Node HTTP chores every local upstream of the tests repeats: reading a request's body
 * and listening on a loopback port (never on a public interface).
 */
import type { IncomingMessage, Server } from "node:http";

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Resolves once `server` listens on 127.0.0.1:`port`; rejects when it cannot (the port is taken). */
export function listenOnLoopback<T extends Server>(server: T, port: number): Promise<T> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

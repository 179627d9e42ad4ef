/** The source Durable Object's own view (status(): session, inventory hint, call window). */
import { env } from "cloudflare:workers";
import type { SourceStatus } from "../../workers/gateway/upstream.types";

export function sourceStatus(sourceId: number): Promise<SourceStatus> {
  const namespace = env.GATEWAY_SOURCE;
  return namespace.get(namespace.idFromName(String(sourceId))).status() as Promise<SourceStatus>;
}

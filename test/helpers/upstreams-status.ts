/**
 * A source's state as its Durable Object keeps it: status() read straight from the object
 * (session, warmth, inventory hint, RPC counts), and the health API (which first sends the
 * Worker isolate's pending stateless-call reports, so a call window read after a call includes it).
 */
import { env } from "cloudflare:workers";
import type { SourceHealth } from "../../workers/gateway/sources/sources.schema";
import type { SourceStatus } from "../../workers/gateway/sources/upstream.types";
import { api } from "./rest";
import type { TestUser } from "./users";

export function sourceStatus(sourceId: number): Promise<SourceStatus> {
  const namespace = env.GATEWAY_SOURCE;
  return namespace.get(namespace.idFromName(String(sourceId))).status() as Promise<SourceStatus>;
}

export async function sourceHealth(owner: TestUser, sourceId: number): Promise<SourceHealth> {
  const { status, body } = await api<SourceHealth>(owner, "GET", `/api/sources/${sourceId}/health`);
  if (status !== 200) throw new Error(`health of source ${sourceId}: HTTP ${status}`);
  return body;
}

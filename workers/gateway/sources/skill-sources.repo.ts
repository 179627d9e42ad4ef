/**
 * The sources whose skills /mcp serves to a user: their own, enabled and not hidden — the same
 * sources whose tools it lists. Another user's source, a disabled or a hidden one is never found.
 */
import { and, asc, eq } from "drizzle-orm";
import { sources } from "../../../d1/schema";
import type { Db } from "../../lib/db";
import type { CallSource } from "./sources.repo";

const columns = {
  id: sources.id,
  userId: sources.userId,
  name: sources.name,
  slug: sources.slug,
  mcpServerUrl: sources.mcpServerUrl,
  mcpTransportType: sources.mcpTransportType,
  mcpLifecycleMode: sources.mcpLifecycleMode,
  mcpEnvVars: sources.mcpEnvVars,
  bridgeToken: sources.bridgeToken,
  timeoutMs: sources.timeoutMs,
  upstreamKind: sources.upstreamKind,
  protocolVersion: sources.protocolVersion,
  discoverResult: sources.discoverResult,
  upstreamAuth: sources.upstreamAuth,
};

const served = (userId: number) => and(eq(sources.userId, userId), eq(sources.enabled, true), eq(sources.hidden, false));

/** At most `limit` of the user's served sources, by slug. */
export function servedSources(db: Db, userId: number, limit: number): Promise<CallSource[]> {
  return db.select(columns).from(sources).where(served(userId)).orderBy(asc(sources.slug)).limit(limit).all();
}

/** The user's served source of this slug, or undefined (unknown, another user's, disabled or hidden). */
export function servedSourceBySlug(db: Db, userId: number, slug: string): Promise<CallSource | undefined> {
  return db
    .select(columns)
    .from(sources)
    .where(and(served(userId), eq(sources.slug, slug)))
    .get();
}

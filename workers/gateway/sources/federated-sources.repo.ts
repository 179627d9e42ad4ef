/**
 * The sources whose resources, prompts and completions /mcp serves a user (decision 0068): the
 * user's own, enabled and not hidden — exactly the sources whose tools /mcp lists. Another user's,
 * a disabled, a hidden or a deleted source is indistinguishable from a missing one.
 */
import { and, asc, eq } from "drizzle-orm";
import { sources } from "../../../d1/schema";
import type { Db } from "../../lib/db";
import type { CallSource } from "./sources.repo";

const callSourceColumns = {
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

/** Every source /mcp serves this user, by slug. */
export function servedSources(db: Db, userId: number): Promise<CallSource[]> {
  return db.select(callSourceColumns).from(sources).where(served(userId)).orderBy(asc(sources.slug)).all();
}

/** The source `<slug>` names for this user, or undefined (unknown, another user's, disabled, hidden or deleted). */
export function servedSource(db: Db, userId: number, slug: string): Promise<CallSource | undefined> {
  return db
    .select(callSourceColumns)
    .from(sources)
    .where(and(served(userId), eq(sources.slug, slug)))
    .get();
}

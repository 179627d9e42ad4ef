/**
 * D1 access for sources' MCP authorization (source_authorizations) and the flows in progress
 * (upstream_oauth_flows). Every statement a user's request reaches is scoped by the user id as
 * well as the source id; sealed columns are written and read as the service sealed them.
 */
import { and, count, eq, gt, lt, min, sql } from "drizzle-orm";
import { sourceAuthorizations, sources, upstreamOauthFlows } from "../../d1/schema";
import { batch, type Db } from "../lib/db";

export type AuthorizationRow = typeof sourceAuthorizations.$inferSelect;
export type AuthorizationPatch = Partial<Omit<AuthorizationRow, "sourceId" | "userId">>;
export type FlowRow = typeof upstreamOauthFlows.$inferSelect;

export async function getAuthorization(db: Db, userId: number, sourceId: number): Promise<AuthorizationRow | undefined> {
  return db
    .select()
    .from(sourceAuthorizations)
    .where(and(eq(sourceAuthorizations.sourceId, sourceId), eq(sourceAuthorizations.userId, userId)))
    .get();
}

/**
 * What discovery learned: the row is created (status needs_authorization) or its discovered facts
 * updated, and the source marked `oauth` so its calls look for a token — in one batch.
 */
export async function recordProtection(
  db: Db,
  userId: number,
  sourceId: number,
  facts: Pick<AuthorizationRow, "resourceMetadataUrl" | "resource" | "authorizationServer" | "scopesSupported" | "discoveryState">,
  now: string,
): Promise<void> {
  await db.batch([
    db
      .insert(sourceAuthorizations)
      .values({ sourceId, userId, status: "needs_authorization", ...facts, updatedAt: now })
      .onConflictDoUpdate({ target: sourceAuthorizations.sourceId, set: { ...facts, updatedAt: now } }),
    db
      .update(sources)
      .set({ upstreamAuth: "oauth" })
      .where(and(eq(sources.id, sourceId), eq(sources.userId, userId))),
  ]);
}

/**
 * Everything of a source's connection goes at once — its authorization row (tokens, registration,
 * learned protection), its flows in progress — and the source is no longer marked `oauth`, so its
 * next discovery asks its (new) URL without a token and learns its protection afresh.
 */
export async function forgetConnection(db: Db, userId: number, sourceId: number): Promise<void> {
  await db.batch([
    db.delete(sourceAuthorizations).where(and(eq(sourceAuthorizations.sourceId, sourceId), eq(sourceAuthorizations.userId, userId))),
    db.delete(upstreamOauthFlows).where(and(eq(upstreamOauthFlows.sourceId, sourceId), eq(upstreamOauthFlows.userId, userId))),
    db
      .update(sources)
      .set({ upstreamAuth: "none" })
      .where(and(eq(sources.id, sourceId), eq(sources.userId, userId))),
  ]);
}

export async function updateAuthorization(db: Db, userId: number, sourceId: number, patch: AuthorizationPatch): Promise<void> {
  await db
    .update(sourceAuthorizations)
    .set(patch)
    .where(and(eq(sourceAuthorizations.sourceId, sourceId), eq(sourceAuthorizations.userId, userId)));
}

/**
 * Applies `patch` only if the stored tokens are still `previousSealed`, those a refresh started
 * from: two isolates refreshing at once keep the first answer (the second reads it instead), and a
 * refresh's outcome never lands on a connection made while it ran.
 */
export async function updateWhileTokensAre(
  db: Db,
  userId: number,
  sourceId: number,
  previousSealed: string,
  patch: AuthorizationPatch,
): Promise<boolean> {
  const result = await db
    .update(sourceAuthorizations)
    .set(patch)
    .where(
      and(
        eq(sourceAuthorizations.sourceId, sourceId),
        eq(sourceAuthorizations.userId, userId),
        eq(sourceAuthorizations.tokens, previousSealed),
      ),
    )
    .run();
  return result.meta.changes > 0;
}

/** What a start keeps of a new flow (the browser binding comes when its link is opened). */
export type NewFlow = Pick<FlowRow, "stateHash" | "startHash" | "userId" | "sourceId" | "secrets" | "scope" | "returnTo" | "expiresAt">;

/** A user's unexpired flows: how many, and when the first of them expires. */
export interface OpenFlows {
  count: number;
  earliestExpiry: string | null;
}

export type FlowInsert = { inserted: true } | { inserted: false; open: OpenFlows };

/**
 * Keeps a new flow unless its user already has `limit` unexpired ones, and with it the patch of the
 * start that made it — one batch, so one transaction. Expired flows go first; the insert counts
 * in its own statement, so starts running at once cannot all pass the count; the patch applies
 * only when the flow went in, so a refused start leaves the authorization row as it was. A refusal
 * reports the open flows as the insert saw them.
 */
export async function insertFlow(
  db: Db,
  flow: NewFlow,
  authorization: AuthorizationPatch,
  limit: number,
  now: string,
): Promise<FlowInsert> {
  const [, inserted, , seen] = await batch(db, [
    db.delete(upstreamOauthFlows).where(lt(upstreamOauthFlows.expiresAt, now)),
    sql`INSERT INTO upstream_oauth_flows (state_hash, start_hash, user_id, source_id, secrets, scope, return_to, expires_at)
      SELECT ${flow.stateHash}, ${flow.startHash}, ${flow.userId}, ${flow.sourceId}, ${flow.secrets}, ${flow.scope}, ${flow.returnTo}, ${flow.expiresAt}
      WHERE (SELECT count(*) FROM upstream_oauth_flows WHERE user_id = ${flow.userId} AND expires_at > ${now}) < ${limit}
      RETURNING state_hash`,
    db
      .update(sourceAuthorizations)
      .set(authorization)
      .where(
        and(
          eq(sourceAuthorizations.sourceId, flow.sourceId),
          eq(sourceAuthorizations.userId, flow.userId),
          sql`EXISTS (SELECT 1 FROM upstream_oauth_flows WHERE state_hash = ${flow.stateHash})`,
        ),
      ),
    sql`SELECT count(*) AS count, min(expires_at) AS earliest_expiry FROM upstream_oauth_flows WHERE user_id = ${flow.userId} AND expires_at > ${now}`,
  ]);
  if (inserted!.length > 0) return { inserted: true };
  const open = seen![0];
  const earliestExpiry = open?.["earliest_expiry"];
  return {
    inserted: false,
    open: { count: Number(open?.["count"] ?? 0), earliestExpiry: typeof earliestExpiry === "string" ? earliestExpiry : null },
  };
}

/** How many flows the user has unexpired at `now`, and when the first of them expires. */
export async function openFlows(db: Db, userId: number, now: string): Promise<OpenFlows> {
  const row = await db
    .select({ count: count(), earliestExpiry: min(upstreamOauthFlows.expiresAt) })
    .from(upstreamOauthFlows)
    .where(and(eq(upstreamOauthFlows.userId, userId), gt(upstreamOauthFlows.expiresAt, now)))
    .get();
  return { count: row?.count ?? 0, earliestExpiry: row?.earliestExpiry ?? null };
}

/** The unexpired flows of a user's source (a start looks there for a registration to reuse). */
export async function unexpiredFlowsOf(db: Db, userId: number, sourceId: number, now: string): Promise<FlowRow[]> {
  return db
    .select()
    .from(upstreamOauthFlows)
    .where(and(eq(upstreamOauthFlows.userId, userId), eq(upstreamOauthFlows.sourceId, sourceId), gt(upstreamOauthFlows.expiresAt, now)))
    .all();
}

export async function flowByStart(db: Db, startHash: string, now: string): Promise<FlowRow | undefined> {
  return db
    .select()
    .from(upstreamOauthFlows)
    .where(and(eq(upstreamOauthFlows.startHash, startHash), sql`${upstreamOauthFlows.expiresAt} > ${now}`))
    .get();
}

/** Binds the flow to the browser that opened its start link; only the first browser wins. */
export async function bindFlow(db: Db, stateHash: string, browserHash: string): Promise<boolean> {
  const result = await db
    .update(upstreamOauthFlows)
    .set({ browserHash })
    .where(and(eq(upstreamOauthFlows.stateHash, stateHash), sql`${upstreamOauthFlows.browserHash} IS NULL`))
    .run();
  return result.meta.changes > 0;
}

/** Takes the flow of this state, once: it is deleted in the same statement, so a replay finds nothing. */
export async function takeFlow(db: Db, stateHash: string): Promise<FlowRow | undefined> {
  const rows = await db.delete(upstreamOauthFlows).where(eq(upstreamOauthFlows.stateHash, stateHash)).returning().all();
  return rows[0];
}

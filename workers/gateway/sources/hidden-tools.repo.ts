/**
 * D1 access for the tools a user hid from their own /mcp list. Every statement is scoped by the
 * user id; a source's tools are reached only through a source id the service resolved for that
 * same user, and rows go with their source (ON DELETE CASCADE).
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { gatewayHiddenTools, sources } from "../../../d1/schema";
import type { Db } from "../../lib/db";

export interface HiddenToolRow {
  sourceId: number | null;
  /** Built-in: the tool's name. Source tool: its alias. */
  tool: string;
  slug: string | null;
}

export async function listHidden(db: Db, userId: number): Promise<HiddenToolRow[]> {
  return db
    .select({ sourceId: gatewayHiddenTools.sourceId, tool: gatewayHiddenTools.tool, slug: sources.slug })
    .from(gatewayHiddenTools)
    .leftJoin(sources, eq(sources.id, gatewayHiddenTools.sourceId))
    .where(eq(gatewayHiddenTools.userId, userId))
    .orderBy(asc(sources.slug), asc(gatewayHiddenTools.tool))
    .all();
}

export async function hiddenBuiltins(db: Db, userId: number): Promise<Set<string>> {
  const rows = await db
    .select({ tool: gatewayHiddenTools.tool })
    .from(gatewayHiddenTools)
    .where(and(eq(gatewayHiddenTools.userId, userId), isNull(gatewayHiddenTools.sourceId)))
    .all();
  return new Set(rows.map((row) => row.tool));
}

/** Idempotent: hiding a hidden tool again changes nothing. */
export async function hide(db: Db, userId: number, sourceId: number | null, tool: string): Promise<void> {
  await db.insert(gatewayHiddenTools).values({ userId, sourceId, tool }).onConflictDoNothing().run();
}

/** True when something was unhidden. */
export async function unhide(db: Db, userId: number, sourceId: number | null, tool: string): Promise<boolean> {
  const row = await db
    .delete(gatewayHiddenTools)
    .where(
      and(
        eq(gatewayHiddenTools.userId, userId),
        sql`coalesce(${gatewayHiddenTools.sourceId}, 0) = ${sourceId ?? 0}`,
        eq(gatewayHiddenTools.tool, tool),
      ),
    )
    .returning({ id: gatewayHiddenTools.id })
    .get();
  return row !== undefined;
}

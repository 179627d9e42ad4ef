/**
 * D1 access for gateway sources and their tool inventory. Every statement on `sources` is scoped
 * by user id, so another user's source is indistinguishable from a missing one; `source_tools`
 * rows are only reached through a source the caller owns.
 */
import { and, asc, count, eq, sql } from "drizzle-orm";
import { sources, sourceTools } from "../../d1/schema";
import { batch, type Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { toolAlias } from "./sources.schema";
import type { UpstreamTool } from "./upstream.types";

export type SourceRow = typeof sources.$inferSelect;
export type SourceInsert = Omit<typeof sources.$inferInsert, "id" | "createdAt" | "updatedAt">;
export type SourcePatch = Partial<
  Pick<SourceRow, "name" | "slug" | "mcpServerUrl" | "mcpTransportType" | "mcpLifecycleMode" | "mcpEnvVars" | "timeoutMs" | "enabled">
>;
export type SourceToolRow = typeof sourceTools.$inferSelect;

function isUniqueViolation(error: unknown): boolean {
  const text = `${String(error)} ${error instanceof Error ? String(error.cause ?? "") : ""}`;
  return text.includes("UNIQUE constraint failed");
}

function slugTaken(slug: string): AppError {
  return new AppError("conflict", `You already have a source with slug ${slug}; choose another name`, { details: { field: "name" } });
}

export async function insertSource(db: Db, values: SourceInsert): Promise<SourceRow> {
  try {
    const row = await db.insert(sources).values(values).returning().get();
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(values.slug);
    throw error;
  }
}

export async function listSources(db: Db, userId: number): Promise<(SourceRow & { toolCount: number })[]> {
  const toolCount = db
    .select({ sourceId: sourceTools.sourceId, n: count().as("n") })
    .from(sourceTools)
    .groupBy(sourceTools.sourceId)
    .as("tc");
  const rows = await db
    .select({ source: sources, toolCount: sql<number>`coalesce(${toolCount.n}, 0)` })
    .from(sources)
    .leftJoin(toolCount, eq(toolCount.sourceId, sources.id))
    .where(eq(sources.userId, userId))
    .orderBy(asc(sources.id))
    .all();
  return rows.map((row) => ({ ...row.source, toolCount: row.toolCount }));
}

export async function getSource(db: Db, userId: number, id: number): Promise<SourceRow | undefined> {
  return db.select().from(sources).where(and(eq(sources.userId, userId), eq(sources.id, id))).get();
}

export async function updateSource(db: Db, userId: number, id: number, patch: SourcePatch, updatedAt: string): Promise<SourceRow | undefined> {
  try {
    return await db
      .update(sources)
      .set({ ...patch, updatedAt })
      .where(and(eq(sources.userId, userId), eq(sources.id, id)))
      .returning()
      .get();
  } catch (error) {
    if (isUniqueViolation(error) && patch.slug) throw slugTaken(patch.slug);
    throw error;
  }
}

export async function deleteSource(db: Db, userId: number, id: number): Promise<boolean> {
  const row = await db
    .delete(sources)
    .where(and(eq(sources.userId, userId), eq(sources.id, id)))
    .returning({ id: sources.id })
    .get();
  return row !== undefined;
}

export async function toolsOf(db: Db, sourceId: number): Promise<SourceToolRow[]> {
  return db.select().from(sourceTools).where(eq(sourceTools.sourceId, sourceId)).orderBy(asc(sourceTools.name)).all();
}

/**
 * Aliases are stable: a tool keeps the alias it had; a new tool gets its sanitised name, made
 * unique within the source (two upstream names can sanitise alike) with a numeric suffix.
 */
export function assignAliases(tools: readonly UpstreamTool[], previous: ReadonlyMap<string, string>): Map<string, string> {
  const aliases = new Map<string, string>();
  const used = new Set<string>();
  for (const tool of tools) {
    const kept = previous.get(tool.name);
    if (kept && !used.has(kept)) {
      aliases.set(tool.name, kept);
      used.add(kept);
    }
  }
  for (const tool of tools) {
    if (aliases.has(tool.name)) continue;
    const base = toolAlias(tool.name);
    let alias = base;
    for (let n = 2; used.has(alias) || [...previous.values()].includes(alias); n++) alias = `${base}_${n}`;
    aliases.set(tool.name, alias);
    used.add(alias);
  }
  return aliases;
}

/** Replaces the inventory in one batch (one transaction) and records the successful discovery. */
export async function replaceTools(db: Db, sourceId: number, tools: readonly UpstreamTool[], discoveredAt: string): Promise<SourceToolRow[]> {
  const previous = new Map((await toolsOf(db, sourceId)).map((row) => [row.name, row.alias]));
  const aliases = assignAliases(tools, previous);
  const rows: SourceToolRow[] = tools.map((tool) => ({
    sourceId,
    name: tool.name,
    alias: aliases.get(tool.name)!,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
    discoveredAt,
  }));
  await batch(db, [
    db.delete(sourceTools).where(eq(sourceTools.sourceId, sourceId)),
    ...rows.map((row) => db.insert(sourceTools).values(row)),
    db.update(sources).set({ lastDiscoveredAt: discoveredAt, lastDiscoveryError: null }).where(eq(sources.id, sourceId)),
  ]);
  return rows;
}

export async function recordDiscoveryError(db: Db, sourceId: number, message: string): Promise<void> {
  await db.update(sources).set({ lastDiscoveryError: message.slice(0, 500) }).where(eq(sources.id, sourceId));
}

export interface InventoryRow {
  source: SourceRow;
  tool: SourceToolRow;
}

/** Every tool of the user's enabled sources: what /mcp lists, in one query. */
export async function enabledInventory(db: Db, userId: number): Promise<InventoryRow[]> {
  return db
    .select({ source: sources, tool: sourceTools })
    .from(sourceTools)
    .innerJoin(sources, eq(sources.id, sourceTools.sourceId))
    .where(and(eq(sources.userId, userId), eq(sources.enabled, true)))
    .orderBy(asc(sources.slug), asc(sourceTools.alias))
    .all();
}

export async function findEnabledTool(db: Db, userId: number, slug: string, alias: string): Promise<InventoryRow | undefined> {
  return db
    .select({ source: sources, tool: sourceTools })
    .from(sourceTools)
    .innerJoin(sources, eq(sources.id, sourceTools.sourceId))
    .where(and(eq(sources.userId, userId), eq(sources.slug, slug), eq(sources.enabled, true), eq(sourceTools.alias, alias)))
    .get();
}

/**
 * D1 access for gateway sources and their tool inventory. Every statement on `sources` is scoped
 * by user id, so another user's source is indistinguishable from a missing one; `source_tools`
 * rows are only reached through a source the caller owns.
 */
import { and, asc, count, eq, getTableColumns, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { gatewayHiddenTools, sources, sourceToolAliases, sourceToolPins, sourceTools } from "../../../d1/schema";
import { batch, type Bindable, type Db, type Statement } from "../../lib/db";
import { AppError } from "../../lib/errors";
import { planAliases } from "./aliases";
import type { OutputKind, UpstreamTool } from "./upstream.types";

export type SourceRow = typeof sources.$inferSelect;
export type SourceInsert = Omit<typeof sources.$inferInsert, "id" | "createdAt" | "updatedAt">;
export type SourcePatch = Partial<
  Pick<
    SourceRow,
    | "name"
    | "slug"
    | "description"
    | "mcpServerUrl"
    | "mcpPluginDir"
    | "mcpTransportType"
    | "mcpLifecycleMode"
    | "mcpEnvVars"
    | "mcpCommand"
    | "mcpArgs"
    | "mcpRuntimeHint"
    | "manifest"
    | "bridgeToken"
    | "timeoutMs"
    | "enabled"
    | "hidden"
  >
>;
export type SourceToolRow = typeof sourceTools.$inferSelect;
/** A stored tool with the hash its owner approved for it (null: none): it is held when that is not its own. */
export type PinnedToolRow = SourceToolRow & { approvedHash: string | null };

/** Whether a stored tool waits for its owner's approval (decision 0049). */
export const isHeld = (tool: Pick<PinnedToolRow, "definitionHash" | "approvedHash">): boolean => tool.approvedHash !== tool.definitionHash;

/** A pin approving the joined tool's current definition: only such a tool is listed and callable. */
const approvedPin = and(
  eq(sourceToolPins.sourceId, sourceTools.sourceId),
  eq(sourceToolPins.name, sourceTools.name),
  eq(sourceToolPins.definitionHash, sourceTools.definitionHash),
);

/**
 * The title /mcp serves: the upstream's (or its tool name) followed by the source's slug, so no
 * source tool's title reads as a built-in's (decision 0049). Built when listed, so it follows a
 * renamed source at once.
 */
const servedTitle = sql<string>`coalesce(${sourceTools.title}, ${sourceTools.name}) || ' (' || ${sources.slug} || ')'`;
export type SourceAliasRow = typeof sourceToolAliases.$inferSelect;

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

export async function listSources(db: Db, userId: number): Promise<(SourceRow & { toolCount: number; heldToolCount: number })[]> {
  const toolCount = db
    .select({ sourceId: sourceTools.sourceId, n: count().as("n"), held: sql<number>`count(*) - count(${sourceToolPins.name})`.as("held") })
    .from(sourceTools)
    .leftJoin(sourceToolPins, approvedPin)
    .groupBy(sourceTools.sourceId)
    .as("tc");
  const rows = await db
    .select({
      source: sources,
      toolCount: sql<number>`coalesce(${toolCount.n}, 0)`,
      heldToolCount: sql<number>`coalesce(${toolCount.held}, 0)`,
    })
    .from(sources)
    .leftJoin(toolCount, eq(toolCount.sourceId, sources.id))
    .where(eq(sources.userId, userId))
    .orderBy(asc(sources.id))
    .all();
  return rows.map((row) => ({ ...row.source, toolCount: row.toolCount, heldToolCount: row.heldToolCount }));
}

export async function getSource(db: Db, userId: number, id: number): Promise<SourceRow | undefined> {
  return db
    .select()
    .from(sources)
    .where(and(eq(sources.userId, userId), eq(sources.id, id)))
    .get();
}

export async function getSourceBySlug(db: Db, userId: number, slug: string): Promise<SourceRow | undefined> {
  return db
    .select()
    .from(sources)
    .where(and(eq(sources.userId, userId), eq(sources.slug, slug)))
    .get();
}

export async function updateSource(
  db: Db,
  userId: number,
  id: number,
  patch: SourcePatch,
  updatedAt: string,
): Promise<SourceRow | undefined> {
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

export async function toolsOf(db: Db, sourceId: number): Promise<PinnedToolRow[]> {
  return db
    .select({ ...getTableColumns(sourceTools), approvedHash: sourceToolPins.definitionHash })
    .from(sourceTools)
    .leftJoin(sourceToolPins, and(eq(sourceToolPins.sourceId, sourceTools.sourceId), eq(sourceToolPins.name, sourceTools.name)))
    .where(eq(sourceTools.sourceId, sourceId))
    .orderBy(asc(sourceTools.name))
    .all();
}

/**
 * The bytes the tools of the user's other sources take (every stored tool, listed or not: hiding,
 * disabling or holding a tool does not make room, since none of them runs a discovery to check
 * the limit again).
 */
export async function listedBytesBeside(db: Db, userId: number, sourceId: number): Promise<number> {
  const row = await db
    .select({ bytes: sql<number>`coalesce(sum(${sourceTools.definitionBytes}), 0)` })
    .from(sourceTools)
    .innerJoin(sources, eq(sources.id, sourceTools.sourceId))
    .where(and(eq(sources.userId, userId), ne(sources.id, sourceId)))
    .get();
  return row?.bytes ?? 0;
}

export async function aliasesOf(db: Db, sourceId: number): Promise<SourceAliasRow[]> {
  return db.select().from(sourceToolAliases).where(eq(sourceToolAliases.sourceId, sourceId)).orderBy(asc(sourceToolAliases.alias)).all();
}

export interface ReplacedInventory {
  tools: SourceToolRow[];
  aliases: SourceAliasRow[];
  warnings: string[];
}

/** What a discovery learned of the upstream; absent when only the tool list changed (list_changed). */
export type LearnedUpstream = Pick<SourceRow, "upstreamKind" | "protocolVersion" | "discoverResult">;

/** A tool of a new inventory with what pinning needs of it (tool-pins.ts#hashTools). */
export interface HashedTool {
  tool: UpstreamTool;
  hash: string;
  bytes: number;
}

/** The new inventory: the tools with their hashes, what the source's row learned, and the statements pinning it. */
export interface NewInventory {
  tools: readonly HashedTool[];
  /** The stored tools it replaces (toolsOf): aliases and the time each definition was first seen carry over. */
  previous: readonly SourceToolRow[];
  discoveredAt: string;
  staleAt: string | null;
  /** Source-level warnings besides the alias plan's. */
  warnings: readonly string[];
  learned?: LearnedUpstream | undefined;
  /** Pins and their outbox events, run after the tools are written (tool-pins.repo.ts). */
  after: readonly Statement[];
}

/**
 * Replaces the inventory and its aliases in one batch (one transaction) with its pins and their
 * events, and records the successful discovery; per-user hidden entries of a renamed tool follow
 * it to its new alias.
 */
export async function replaceTools(db: Db, source: Pick<SourceRow, "id" | "slug">, inventory: NewInventory): Promise<ReplacedInventory> {
  const { previous, discoveredAt } = inventory;
  const previousAliases = await aliasesOf(db, source.id);
  const tools = inventory.tools.map(({ tool }) => tool);
  const plan = planAliases(source.slug, previous, previousAliases, tools);
  const seen = new Map(previous.map((tool) => [tool.name, tool]));
  const rows: SourceToolRow[] = inventory.tools.map(({ tool, hash, bytes }) => {
    const before = seen.get(tool.name);
    return {
      sourceId: source.id,
      name: tool.name,
      alias: plan.primary.get(tool.name)!,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      ui: tool.ui ?? null,
      discoveredAt,
      definitionHash: hash,
      definitionSince: before?.definitionHash === hash ? (before.definitionSince ?? discoveredAt) : discoveredAt,
      definitionBytes: bytes,
      textWarnings: tool.warnings,
    };
  });
  const aliases: SourceAliasRow[] = plan.extra.map((extra) => ({
    sourceId: source.id,
    alias: extra.alias,
    toolName: extra.toolName,
    createdAt: discoveredAt,
  }));
  const warnings = [...plan.warnings, ...inventory.warnings];
  await batch(db, [
    db.delete(sourceTools).where(eq(sourceTools.sourceId, source.id)),
    ...rows.map((row) => db.insert(sourceTools).values(row)),
    db.delete(sourceToolAliases).where(eq(sourceToolAliases.sourceId, source.id)),
    ...aliases.map((row) => db.insert(sourceToolAliases).values(row)),
    ...plan.renamed.map(({ from, to }) =>
      db
        .update(gatewayHiddenTools)
        .set({ tool: to })
        .where(and(eq(gatewayHiddenTools.sourceId, source.id), eq(gatewayHiddenTools.tool, from))),
    ),
    ...inventory.after,
    db
      .update(sources)
      .set({
        lastDiscoveredAt: discoveredAt,
        lastDiscoveryAttemptAt: discoveredAt,
        lastDiscoveryError: null,
        discoveryWarnings: warnings,
        inventoryStaleAt: inventory.staleAt,
        ...inventory.learned,
      })
      .where(eq(sources.id, source.id)),
  ]);
  return { tools: rows, aliases, warnings };
}

export async function recordDiscoveryError(db: Db, sourceId: number, message: string, attemptedAt: string): Promise<void> {
  await db
    .update(sources)
    .set({ lastDiscoveryError: message.slice(0, 500), lastDiscoveryAttemptAt: attemptedAt })
    .where(eq(sources.id, sourceId));
}

export interface InventoryRow {
  source: SourceRow;
  tool: SourceToolRow;
}

/** A hidden-tool row of this user for the joined tool (built-ins are matched elsewhere). */
function hiddenJoin(userId: Bindable<number>) {
  return and(
    eq(gatewayHiddenTools.userId, userId),
    eq(gatewayHiddenTools.sourceId, sourceTools.sourceId),
    eq(gatewayHiddenTools.tool, sourceTools.alias),
  );
}

const listed = (userId: Bindable<number>) =>
  and(eq(sources.userId, userId), eq(sources.enabled, true), eq(sources.hidden, false), isNull(gatewayHiddenTools.id));

/**
 * Every tool /mcp lists for the user — enabled, unhidden sources, minus hidden tools and tools held
 * for the owner's approval — in one query, each with the title /mcp serves.
 */
export async function listedInventory(db: Db, userId: number): Promise<InventoryRow[]> {
  return db
    .select({ source: sources, tool: { ...getTableColumns(sourceTools), title: servedTitle } })
    .from(sourceTools)
    .innerJoin(sources, eq(sources.id, sourceTools.sourceId))
    .innerJoin(sourceToolPins, approvedPin)
    .leftJoin(gatewayHiddenTools, hiddenJoin(userId))
    .where(listed(userId))
    .orderBy(asc(sources.slug), asc(sourceTools.alias))
    .all();
}

/** What a call needs of its source: how to reach it (the sealed secrets) and what kind of upstream it is. */
export type CallSource = Pick<
  SourceRow,
  | "id"
  | "userId"
  | "name"
  | "slug"
  | "mcpServerUrl"
  | "mcpTransportType"
  | "mcpLifecycleMode"
  | "mcpEnvVars"
  | "bridgeToken"
  | "timeoutMs"
  | "upstreamKind"
  | "protocolVersion"
  | "discoverResult"
  | "upstreamAuth"
>;

/** A callable tool: what a call uses, and its listing fields as stored JSON text (parsed only when the SDK registers it). */
export interface CallableTool {
  source: CallSource;
  tool: {
    /** The upstream's name. */
    name: string;
    alias: string;
    title: string | null;
    description: string;
    inputSchemaJson: string;
    outputSchemaJson: string | null;
    annotationsJson: string;
    idempotent: boolean;
    output: OutputKind;
    /** Its definition changed upstream (or it is new) since its owner approved: not called until they approve it (decision 0049). */
    held: boolean;
  };
}

/** The one lookup, built and prepared once per isolate (drizzle's query building costs more than the statement). */
/** What a call needs of its source (a `CallSource`): selected by every query that hands one to the call path. */
export const callSourceColumns = {
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

const callableQueries = new WeakMap<Db, ReturnType<typeof prepareCallable>>();

function prepareCallable(db: Db) {
  const userId = sql.placeholder("userId");
  const alias = sql.placeholder("alias");
  const aliased = db
    .select({ toolName: sourceToolAliases.toolName })
    .from(sourceToolAliases)
    .where(and(eq(sourceToolAliases.sourceId, sources.id), eq(sourceToolAliases.alias, alias)));
  return db
    .select({
      ...callSourceColumns,
      toolName: sourceTools.name,
      toolAlias: sourceTools.alias,
      title: servedTitle,
      description: sourceTools.description,
      // As stored: parsed only by the SDK path, which registers the tool.
      inputSchemaJson: sql<string>`${sourceTools.inputSchema}`,
      outputSchemaJson: sql<string | null>`${sourceTools.outputSchema}`,
      annotationsJson: sql<string>`${sourceTools.annotations}`,
      idempotent: sql<number>`json_type(${sourceTools.annotations}, '$.idempotentHint') = 'true'`,
      output: sql<OutputKind>`CASE WHEN ${sourceTools.outputSchema} IS NULL THEN 'none' WHEN json_extract(${sourceTools.outputSchema}, '$.type') = 'object' THEN 'object' ELSE 'other' END`,
      held: sql<number>`${sourceToolPins.name} IS NULL`,
    })
    .from(sourceTools)
    .innerJoin(sources, eq(sources.id, sourceTools.sourceId))
    .leftJoin(sourceToolPins, approvedPin)
    .leftJoin(gatewayHiddenTools, hiddenJoin(userId))
    .where(
      and(listed(userId), eq(sources.slug, sql.placeholder("slug")), or(eq(sourceTools.alias, alias), inArray(sourceTools.name, aliased))),
    )
    .orderBy(sql`${sourceTools.alias} = ${alias} DESC`)
    .limit(1)
    .prepare();
}

/**
 * The tool `<slug>__<alias>` calls for this user — by its own alias, or an unlisted alias of a
 * renamed tool (its own alias first) — unless its source is another user's, disabled or hidden,
 * or the tool is hidden: then undefined. A tool held for its owner's approval is found, marked
 * `held`, so its call can say why it is refused. Every call and every registration of a called
 * tool goes through here. SQLite answers the two facts a call needs of the schema and annotations.
 */
export async function findCallableTool(db: Db, userId: number, slug: string, alias: string): Promise<CallableTool | undefined> {
  let query = callableQueries.get(db);
  if (!query) callableQueries.set(db, (query = prepareCallable(db)));
  const row = await query.get({ userId, slug, alias });
  if (!row) return undefined;
  const { toolName, toolAlias, idempotent, held, ...rest } = row;
  const { title, description, inputSchemaJson, outputSchemaJson, annotationsJson, output, ...source } = rest;
  const text = { title, description, inputSchemaJson, outputSchemaJson, annotationsJson, output };
  return { source, tool: { name: toolName, alias: toolAlias, ...text, idempotent: idempotent === 1, held: held === 1 } };
}

/** A source by id alone, whoever owns it: for the Worker's own internal callers (the inventory entry point), never a user's request. */
export async function getSourceById(db: Db, id: number): Promise<SourceRow | undefined> {
  return db.select().from(sources).where(eq(sources.id, id)).get();
}

/**
 * Enabled sources whose discovery is due: never attempted, last attempted before `cutoff`, or
 * past the upstream's cache hint (and not attempted since). Oldest attempt first, at most `limit`.
 */
/** The object of the source says its rediscovery alarm is set for `at` (ISO; decision 0067). */
export async function setRediscoverAt(db: Db, sourceId: number, at: string): Promise<void> {
  await db.update(sources).set({ rediscoverAt: at }).where(eq(sources.id, sourceId)).run();
}

/**
 * Enabled sources whose rediscovery alarm is missing: never armed (NULL), or due before
 * `overdueBefore` and not rediscovered since (a run re-arms and moves the time). Never-armed first.
 */
export async function missingRediscoveryAlarm(
  db: Db,
  overdueBefore: string,
  limit: number,
): Promise<Pick<SourceRow, "id" | "lastDiscoveryAttemptAt">[]> {
  return db
    .select({ id: sources.id, lastDiscoveryAttemptAt: sources.lastDiscoveryAttemptAt })
    .from(sources)
    .where(and(eq(sources.enabled, true), or(isNull(sources.rediscoverAt), lt(sources.rediscoverAt, overdueBefore))))
    .orderBy(sql`${sources.rediscoverAt} IS NOT NULL`, asc(sources.rediscoverAt))
    .limit(limit)
    .all();
}

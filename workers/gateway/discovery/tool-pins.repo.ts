/**
 * D1 statements of pinned tool definitions (decision 0049) and the outbox rows recording their
 * changes. Statements, not calls: each goes into the one batch of the change it belongs to (an
 * inventory written by discovery, an approval), so a pin, its inventory and its event commit
 * together or not at all. A source's pins are only reached through a source the caller owns.
 */
import { and, eq, notInArray, sql } from "drizzle-orm";
import { outbox, sourceToolPins, sourceTools } from "../../../d1/schema";
import type { Db } from "../../lib/db";
import type { PinnedDefinition, StoredPin } from "./tool-pins";
import type { ToolDefinitionsEvent } from "./tool-definitions-event.schema";

export async function pinsOf(db: Db, sourceId: number): Promise<StoredPin[]> {
  return db
    .select({ name: sourceToolPins.name, definitionHash: sourceToolPins.definitionHash, definition: sourceToolPins.definition })
    .from(sourceToolPins)
    .where(eq(sourceToolPins.sourceId, sourceId))
    .all();
}

/** Pins every tool the source's inventory holds now (the first discovery's approval): to run after the inventory's inserts. */
export function approveInventory(sourceId: number, approvedAt: string) {
  return sql`INSERT INTO source_tool_pins (source_id, name, definition_hash, definition, approved_at)
    SELECT source_id, name, definition_hash,
      json_object('title', title, 'description', description, 'input_schema', json(input_schema),
        'output_schema', json(output_schema), 'annotations', json(annotations)),
      ${approvedAt}
    FROM source_tools WHERE source_id = ${sourceId}
    ON CONFLICT (source_id, name) DO UPDATE SET definition_hash = excluded.definition_hash,
      definition = excluded.definition, approved_at = excluded.approved_at`;
}

/** Pins one definition as the owner approved it (what they were shown: its hash and definition). */
export function approveDefinition(db: Db, sourceId: number, name: string, hash: string, definition: PinnedDefinition, approvedAt: string) {
  return db
    .insert(sourceToolPins)
    .values({ sourceId, name, definitionHash: hash, definition: { ...definition }, approvedAt })
    .onConflictDoUpdate({
      target: [sourceToolPins.sourceId, sourceToolPins.name],
      set: { definitionHash: hash, definition: { ...definition }, approvedAt },
    });
}

/** A pin from before pinning (empty hash) whose definition is still the tool's: the tool's hash from now on. */
export function adoptLegacyPin(db: Db, sourceId: number, name: string, hash: string) {
  return db
    .update(sourceToolPins)
    .set({ definitionHash: hash })
    .where(and(eq(sourceToolPins.sourceId, sourceId), eq(sourceToolPins.name, name), eq(sourceToolPins.definitionHash, "")));
}

/** Drops the pins of tools the upstream no longer lists: to run after the inventory's inserts. A tool that returns is new. */
export function dropGonePins(db: Db, sourceId: number) {
  const current = db.select({ name: sourceTools.name }).from(sourceTools).where(eq(sourceTools.sourceId, sourceId));
  return db.delete(sourceToolPins).where(and(eq(sourceToolPins.sourceId, sourceId), notInArray(sourceToolPins.name, current)));
}

export function insertOutboxEvent(db: Db, event: ToolDefinitionsEvent) {
  return db.insert(outbox).values({
    eventId: event.event_id,
    type: event.type,
    userId: event.user_id,
    taskId: null,
    payload: JSON.stringify(event),
    createdAt: event.occurred_at,
  });
}

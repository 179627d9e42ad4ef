/**
 * The owner's side of pinned tool definitions (decision 0049): which of a source's tools are held
 * because their definition changed upstream (or they are new) since the owner approved, with what
 * changed, and approving them. Reached over REST and from the console only — never through an MCP
 * tool, which a model steered by the very text under review could call. An approval pins exactly
 * the definitions it read, in one batch with its TOOL_DEFINITIONS event.
 */
import type { EventSink } from "../../events/event-sink";
import { nowIso } from "../../lib/clock";
import { batch, type Db } from "../../lib/db";
import { AppError } from "../../lib/errors";
import { isJsonObject } from "../../lib/json";
import { canonicalJson } from "../sources/aliases";
import type { CallableToolCache } from "../calls/callable-cache";
import { gatewayName } from "../sources/gateway-names";
import * as repo from "../sources/sources.repo";
import { type ApproveChangesResult, DEFINITION_FIELDS, type ToolChangeList } from "../sources/sources.schema";
import { toolDefinitionEvents } from "./tool-definition-events";
import { definitionOf, type PinnedDefinition, type StoredPin } from "./tool-pins";
import * as pinsRepo from "./tool-pins.repo";

export interface ToolChangeDeps {
  db: Db;
  events?: EventSink | undefined;
  /** The callable tools kept (the isolate's, workers/isolate-state.ts): an approval drops its owner's. */
  callables: CallableToolCache;
}

type ToolChange = ToolChangeList["changes"][number];

/** A pinned definition as stored (JSON), in the shape the API shows; undefined when unreadable. */
function storedDefinition(definition: Record<string, unknown>): PinnedDefinition | undefined {
  const { title, description, input_schema, output_schema, annotations } = definition;
  if (typeof description !== "string" || !isJsonObject(input_schema)) return undefined;
  return {
    title: typeof title === "string" ? title : null,
    description,
    input_schema,
    output_schema: isJsonObject(output_schema) ? output_schema : null,
    annotations: isJsonObject(annotations) ? annotations : {},
  };
}

function changeOf(slug: string, tool: repo.PinnedToolRow, pin: StoredPin | undefined): ToolChange {
  const current = definitionOf(tool);
  const approved = pin ? storedDefinition(pin.definition) : undefined;
  return {
    name: tool.name,
    gateway_name: gatewayName(slug, tool.alias),
    change: pin ? "changed" : "new",
    changed_fields: DEFINITION_FIELDS.filter(
      (field) => approved === undefined || canonicalJson(approved[field]) !== canonicalJson(current[field]),
    ),
    approved: approved ?? null,
    current,
    definition_hash: tool.definitionHash,
    approved_hash: pin && pin.definitionHash !== "" ? pin.definitionHash : null,
    detected_at: tool.definitionSince,
  };
}

export class ToolChangeService {
  private readonly callables: CallableToolCache;

  constructor(private readonly deps: ToolChangeDeps) {
    this.callables = deps.callables;
  }

  private async held(
    userId: number,
    sourceId: number,
  ): Promise<{ source: repo.SourceRow; held: repo.PinnedToolRow[]; pins: Map<string, StoredPin> }> {
    const source = await repo.getSource(this.deps.db, userId, sourceId);
    if (!source) throw AppError.notFound("Source", sourceId);
    const [tools, pins] = await Promise.all([repo.toolsOf(this.deps.db, sourceId), pinsRepo.pinsOf(this.deps.db, sourceId)]);
    return { source, held: tools.filter(repo.isHeld), pins: new Map(pins.map((pin) => [pin.name, pin])) };
  }

  /** The source's held tools, each with its approved and current definitions and what differs. */
  async list(userId: number, sourceId: number): Promise<ToolChangeList> {
    const { source, held, pins } = await this.held(userId, sourceId);
    const changes = held.map((tool) => changeOf(source.slug, tool, pins.get(tool.name)));
    return { source_id: sourceId, changes, count: changes.length };
  }

  /**
   * Approves the named held tools (every held tool when `names` is absent): their definitions as
   * read now are pinned, so a change arriving meanwhile stays held. A name that is not held is
   * refused, and nothing is approved.
   */
  async approve(userId: number, sourceId: number, names?: readonly string[]): Promise<ApproveChangesResult> {
    const { source, held } = await this.held(userId, sourceId);
    const byName = new Map(held.map((tool) => [tool.name, tool]));
    const chosen = names === undefined ? held : [...new Set(names)].map((name) => byName.get(name) ?? notHeld(sourceId, name));
    const at = nowIso();
    const events = toolDefinitionEvents({
      userId,
      source: { id: source.id, slug: source.slug },
      action: "approved",
      via: "owner",
      at,
      tools: chosen.map((tool) => ({ name: tool.name, change: null, hash: tool.definitionHash, approvedHash: null })),
    });
    const { db } = this.deps;
    if (chosen.length > 0) {
      await batch(db, [
        ...chosen.map((tool) => pinsRepo.approveDefinition(db, source.id, tool.name, tool.definitionHash, definitionOf(tool), at)),
        ...events.map((event) => pinsRepo.insertOutboxEvent(db, event)),
      ]);
      this.callables.forgetUser(userId);
      for (let i = 0; i < events.length; i += 100) this.deps.events?.publish(events.slice(i, i + 100));
    }
    const remaining = await this.list(userId, sourceId);
    return { ...remaining, approved: chosen.map((tool) => ({ name: tool.name, definition_hash: tool.definitionHash })) };
  }
}

function notHeld(sourceId: number, name: string): never {
  const named = JSON.stringify(name.slice(0, 200));
  throw new AppError("not_found", `Source ${sourceId} has no held tool named ${named}; GET /api/sources/${sourceId}/changes lists them`, {
    details: { field: "tools" },
  });
}

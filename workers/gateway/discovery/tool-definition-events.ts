/**
 * The TOOL_DEFINITIONS events of one act on a source's pins (a discovery that held changes, an
 * approval), split into messages of at most TOOLS_PER_EVENT tools (tool-definitions-event.schema.ts).
 */
import { cleanText, shorten } from "./tool-text";
import { EVENT_NAME_CHARS, type ToolDefinitionsEvent, TOOLS_PER_EVENT } from "./tool-definitions-event.schema";

export interface PinAct {
  userId: number;
  source: { id: number; slug: string };
  action: ToolDefinitionsEvent["tool_definitions"]["action"];
  via: ToolDefinitionsEvent["tool_definitions"]["via"];
  tools: readonly { name: string; change: "new" | "changed" | null; hash: string; approvedHash: string | null }[];
  at: string;
}

export function toolDefinitionEvents(act: PinAct): ToolDefinitionsEvent[] {
  const parts = Math.ceil(act.tools.length / TOOLS_PER_EVENT);
  const events: ToolDefinitionsEvent[] = [];
  for (let part = 1; part <= parts; part++) {
    const tools = act.tools.slice((part - 1) * TOOLS_PER_EVENT, part * TOOLS_PER_EVENT);
    events.push({
      event_id: crypto.randomUUID(),
      type: "TOOL_DEFINITIONS",
      version: 1,
      occurred_at: act.at,
      user_id: act.userId,
      task_id: null,
      tool_definitions: {
        source_id: act.source.id,
        source_slug: act.source.slug,
        action: act.action,
        via: act.via,
        tools: tools.map((tool) => ({
          name: shorten(cleanText(tool.name, "title"), EVENT_NAME_CHARS),
          change: tool.change,
          definition_hash: tool.hash,
          approved_hash: tool.approvedHash,
        })),
        part,
        parts,
      },
    });
  }
  return events;
}

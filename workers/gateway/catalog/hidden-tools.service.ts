/**
 * Each user's hidden tools: built-in tools by name, a source's tools by alias (so the entry
 * survives a source rename and follows an upstream rename). Names are resolved against the
 * caller's own sources only: another user's tool is "not found".
 */
import type { Db } from "../../lib/db";
import type { CallableToolCache } from "../calls/callable-cache";
import { AppError } from "../../lib/errors";
import * as hiddenRepo from "../sources/hidden-tools.repo";
import { gatewayName, splitGatewayName } from "../sources/gateway-names";
import * as repo from "../sources/sources.repo";

export interface HiddenTool {
  name: string;
  source_id: number | null;
}

export class HiddenToolService {
  constructor(
    private readonly db: Db,
    private readonly callables: CallableToolCache,
  ) {}

  async list(userId: number): Promise<{ hidden_tools: HiddenTool[]; count: number }> {
    const rows = await hiddenRepo.listHidden(this.db, userId);
    const hidden_tools = rows.map((row) => ({
      name: row.slug === null ? row.tool : gatewayName(row.slug, row.tool),
      source_id: row.sourceId,
    }));
    return { hidden_tools, count: hidden_tools.length };
  }

  /** The built-in tool names the user hid: what /mcp leaves out of the built-ins. */
  async builtins(userId: number): Promise<Set<string>> {
    return hiddenRepo.hiddenBuiltins(this.db, userId);
  }

  /**
   * Which entry a name means: a built-in (one of `builtins`) or a tool of one of the user's own
   * sources, by its alias or a kept alias of a renamed tool (stored under the tool's own alias).
   */
  private async key(
    userId: number,
    name: string,
    builtins: ReadonlySet<string>,
  ): Promise<{ sourceId: number | null; tool: string; name: string }> {
    if (builtins.has(name)) return { sourceId: null, tool: name, name };
    const parts = splitGatewayName(name);
    const source = parts ? await repo.getSourceBySlug(this.db, userId, parts.slug) : undefined;
    if (parts && source) {
      const [tools, aliases] = await Promise.all([repo.toolsOf(this.db, source.id), repo.aliasesOf(this.db, source.id)]);
      const target = aliases.find((a) => a.alias === parts.alias)?.toolName;
      const tool = tools.find((t) => t.alias === parts.alias) ?? tools.find((t) => t.name === target);
      if (tool) return { sourceId: source.id, tool: tool.alias, name: gatewayName(source.slug, tool.alias) };
    }
    throw new AppError("not_found", `Tool ${name} not found: give a built-in tool's name or <source_slug>__<tool> of one of your sources`, {
      details: { field: "name" },
    });
  }

  /** Idempotent. */
  async hide(userId: number, name: string, builtins: ReadonlySet<string>): Promise<{ hidden: boolean; tool: HiddenTool }> {
    const key = await this.key(userId, name, builtins);
    await hiddenRepo.hide(this.db, userId, key.sourceId, key.tool);
    this.callables.forgetUser(userId);
    return { hidden: true, tool: { name: key.name, source_id: key.sourceId } };
  }

  /** Idempotent; `hidden` is false afterwards whether or not the tool was hidden. */
  async unhide(userId: number, name: string, builtins: ReadonlySet<string>): Promise<{ hidden: boolean; tool: HiddenTool }> {
    const key = await this.key(userId, name, builtins);
    await hiddenRepo.unhide(this.db, userId, key.sourceId, key.tool);
    this.callables.forgetUser(userId);
    return { hidden: false, tool: { name: key.name, source_id: key.sourceId } };
  }
}

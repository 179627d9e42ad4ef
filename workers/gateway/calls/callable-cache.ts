/**
 * The callable tools this isolate looked up, per user and /mcp name, kept CALLABLE_TOOL_TTL_MS:
 * a warm source's calls skip the D1 lookup, the largest single cost of a call after the upstream's
 * own work (docs/performance.md › Gateway). Only found tools are kept, so a new source or tool is
 * callable at once.
 *
 * Why this is safe: the key is the user and the name, and the value is what the lookup returned
 * for that user (owner, enabled, hidden source and hidden tool already applied), so no user ever
 * reaches another's tool through it. Every change this isolate makes to a user's sources, their
 * inventory or hidden tools drops that user's entries at once. A change made in another isolate
 * (or by the cron) reaches this one within the TTL: until then the owner may still call a tool
 * they just hid or whose source they just disabled, deleted or changed, with its previous
 * configuration — the owner's own tool and credentials only. The upstream URL rules are checked
 * on every connection regardless.
 */
import type { CallableTool } from "../sources/sources.repo";

export const CALLABLE_TOOL_TTL_MS = 5_000;
const MAX_ENTRIES = 2_048;

export class CallableToolCache {
  private readonly entries = new Map<string, { tool: CallableTool; at: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = CALLABLE_TOOL_TTL_MS,
  ) {}

  get(userId: number, name: string): CallableTool | undefined {
    const key = `${userId}:${name}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at < this.ttlMs) return entry.tool;
    this.entries.delete(key);
    return undefined;
  }

  set(userId: number, name: string, tool: CallableTool): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(`${userId}:${name}`, { tool, at: this.now() });
  }

  /** The user's sources, inventory or hidden tools changed here: their next calls look up again. */
  forgetUser(userId: number): void {
    for (const [key, entry] of this.entries) if (entry.tool.source.userId === userId) this.entries.delete(key);
  }
}

/** The cache of this isolate: module state, holding only what lookups returned (sealed secrets stay sealed). */
export const isolateCallables = new CallableToolCache();

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
 *
 * The isolate's one cache is in workers/isolate-state.ts.
 */
import { BoundedCache } from "../../lib/bounded-cache";
import type { CallableTool } from "../sources/sources.repo";

export const CALLABLE_TOOL_TTL_MS = 5_000;
const MAX_ENTRIES = 2_048;

export class CallableToolCache {
  private readonly entries: BoundedCache<string, CallableTool>;

  constructor(now: () => number = Date.now, ttlMs = CALLABLE_TOOL_TTL_MS) {
    this.entries = new BoundedCache({ maxEntries: MAX_ENTRIES, ttlMs, now });
  }

  get(userId: number, name: string): CallableTool | undefined {
    return this.entries.get(`${userId}:${name}`);
  }

  set(userId: number, name: string, tool: CallableTool): void {
    this.entries.set(`${userId}:${name}`, tool);
  }

  /** The user's sources, inventory or hidden tools changed here: their next calls look up again. */
  forgetUser(userId: number): void {
    this.entries.deleteWhere((tool) => tool.source.userId === userId);
  }
}

/**
 * One Durable Object per user (idFromName("user:<id>")): the D1 bookmark of that user's latest
 * acknowledged write, so that their next request — in any isolate, anywhere — starts its D1 session
 * there and reads what they wrote from a replica that has it (workers/lib/d1-sessions.ts; decision
 * 0065). It holds one string, in its storage so it outlives the object's eviction; the object runs
 * one call at a time and neither call awaits, so keeping the later bookmark is atomic.
 */
import { DurableObject } from "cloudflare:workers";
import { laterBookmark } from "../workers/lib/d1-sessions";

const KEY = "bookmark";

export class UserBookmark extends DurableObject<Env> {
  /** The bookmark of the user's latest acknowledged write, or null when none was recorded. */
  latest(): string | null {
    return this.ctx.storage.kv.get<string>(KEY) ?? null;
  }

  /** Records a write's bookmark; an older one (a slower write of the same user) changes nothing. */
  advance(bookmark: string): void {
    const held = this.latest();
    const later = laterBookmark(held, bookmark);
    if (later !== held && later !== null) this.ctx.storage.kv.put(KEY, later);
  }
}

/**
 * One user's sequential-thinking history: one instance per user (idFromName("user:<id>")). It hosts
 * the history in its SQLite storage; threads, revisions and branches are
 * workers/thinking/thought-log.ts. A Durable Object runs one call at a time, and none of these
 * await, which is what makes each check-then-write atomic.
 */
import { DurableObject } from "cloudflare:workers";
import type { StoredThought, ThoughtInput } from "../workers/thinking/thinking.schema";
import { type RecordOutcome, ThoughtLog } from "../workers/thinking/thought-log";

export class ThinkingLog extends DurableObject<Env> {
  private readonly log: ThoughtLog;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.log = new ThoughtLog(ctx.storage.sql);
  }

  /** Appends a thought (the input already passed the tool's schema) and answers the result fields. */
  record(input: ThoughtInput): RecordOutcome {
    return this.log.record(input);
  }

  /** The stored history, oldest first. */
  history(): StoredThought[] {
    return this.log.history();
  }

  /** Deletes the whole history; answers how many thoughts there were. */
  reset(): number {
    return this.log.reset();
  }
}

/**
 * Sequential thinking as the tools see it: each user's history lives in their own ThinkingLog
 * Durable Object. The object answers a rejected thought as a value; here it becomes the one
 * error type, naming the field.
 */
import { AppError } from "../lib/errors";
import type { StoredThought, ThoughtInput, ThoughtResult } from "./thinking.schema";

export class ThinkingService {
  constructor(private readonly namespace: Env["THINKING"]) {}

  /** The user's own object; the name is the only way to reach it, and only we build names. */
  forUser(userId: number): ReturnType<Env["THINKING"]["get"]> {
    return this.namespace.get(this.namespace.idFromName(`user:${userId}`));
  }

  async record(userId: number, input: ThoughtInput): Promise<ThoughtResult> {
    const outcome = await this.forUser(userId).record(input);
    if (!outcome.ok) throw AppError.invalid(outcome.message, outcome.field);
    return outcome.result;
  }

  async history(userId: number): Promise<StoredThought[]> {
    return this.forUser(userId).history();
  }

  /** Answers how many thoughts were deleted. */
  async reset(userId: number): Promise<number> {
    return this.forUser(userId).reset();
  }
}

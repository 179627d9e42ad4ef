/**
 * Schemas of the sequential-thinking server. The input is the reference server's
 * (modelcontextprotocol/servers, src/sequentialthinking) field for field, so a client written for it
 * works unchanged. Two deliberate tightenings, both about stored data: `thought` and `branchId`
 * have a maximum length (a user's history is kept, so its size must be bounded), and `branchId`
 * must not be empty (an empty name cannot be listed in `branches`). No argument names a user or a
 * thread: the user comes from authentication, the thread is implicit (see thinking.do.ts).
 */
import * as z from "zod";
import { MAX_BRANCH_ID_CHARS, MAX_HISTORY, MAX_THOUGHT_CHARS } from "./thinking-limits.schema";

export { MAX_BRANCH_ID_CHARS, MAX_HISTORY, MAX_THOUGHT_CHARS };

const thoughtNumberField = z.int().min(1);

export const fields = {
  thought: z.string().max(MAX_THOUGHT_CHARS, `must be at most ${MAX_THOUGHT_CHARS} characters`).describe("Your current thinking step"),
  nextThoughtNeeded: z.boolean().describe("Whether another thought step is needed"),
  thoughtNumber: thoughtNumberField.describe("Current thought number (1, 2, 3, …); may go beyond totalThoughts"),
  totalThoughts: thoughtNumberField.describe("Estimated total thoughts needed (5, 10, …); adjust it as you go"),
  isRevision: z.boolean().describe("Whether this thought revises previous thinking"),
  revisesThought: thoughtNumberField.describe("Which thought is being reconsidered (needs isRevision: true)"),
  branchFromThought: thoughtNumberField.describe("Branching point thought number (needs branchId)"),
  branchId: z
    .string()
    .min(1, "must not be empty")
    .max(MAX_BRANCH_ID_CHARS, `must be at most ${MAX_BRANCH_ID_CHARS} characters`)
    .describe("Branch identifier (needs branchFromThought)"),
  needsMoreThoughts: z.boolean().describe("If more thoughts are needed after reaching what seemed like the end"),
};

/**
 * The pairings are checked here, so they name their field whether the call came through the SDK
 * or the fast path; whether the named thought exists is the Durable Object's to say.
 * A refinement does not change the JSON Schema, so the listed input stays the reference's.
 */
export const thoughtInput = z
  .object({
    thought: fields.thought,
    nextThoughtNeeded: fields.nextThoughtNeeded,
    thoughtNumber: fields.thoughtNumber,
    totalThoughts: fields.totalThoughts,
    isRevision: fields.isRevision.optional(),
    revisesThought: fields.revisesThought.optional(),
    branchFromThought: fields.branchFromThought.optional(),
    branchId: fields.branchId.optional(),
    needsMoreThoughts: fields.needsMoreThoughts.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.revisesThought !== undefined && input.isRevision !== true) {
      ctx.addIssue({ code: "custom", path: ["revisesThought"], message: "is only allowed on a revision: set isRevision to true" });
    }
    if (input.branchId !== undefined && input.branchFromThought === undefined) {
      ctx.addIssue({ code: "custom", path: ["branchId"], message: "needs branchFromThought, the thought the branch starts from" });
    }
    // The reference silently records no branch here; a model would lose its branch without knowing.
    if (input.branchFromThought !== undefined && input.branchId === undefined) {
      ctx.addIssue({ code: "custom", path: ["branchFromThought"], message: "needs branchId, the name of the new branch" });
    }
  });

export type ThoughtInput = z.output<typeof thoughtInput>;

/**
 * The reference's five result fields, with its meaning: `branches` and `thoughtHistoryLength`
 * cover the user's whole stored history. `thread` is ours: the history is per user and outlives
 * a conversation, so it also holds earlier problems; `thread` scopes the same numbers to the
 * current chain of thought, which is what a model reasoning about "my branches" wants.
 */
export const thoughtResult = z.object({
  thoughtNumber: z.int(),
  totalThoughts: z.int().describe("Raised to thoughtNumber when the thought went past the estimate"),
  nextThoughtNeeded: z.boolean(),
  branches: z.array(z.string()).describe("Branch ids in the stored history, in order of first use"),
  thoughtHistoryLength: z.int().describe(`Thoughts in the stored history (at most ${MAX_HISTORY})`),
  thread: z
    .object({
      id: z.int().describe("Changes when a thought numbered 1 (not a revision or branch) starts a new chain"),
      thoughtCount: z.int(),
      branches: z.array(z.string()),
    })
    .describe("The current chain of thought"),
});

export type ThoughtResult = z.output<typeof thoughtResult>;

export const resetInput = z.object({});
export const resetResult = z.object({ cleared: z.int().describe("How many thoughts were deleted") });

/** A thought as stored: the input with totalThoughts already adjusted, plus where it sits. */
export interface StoredThought extends ThoughtInput {
  /** Position in the user's history; increases forever, never reused (not even after a reset). */
  seq: number;
  thread: number;
  createdAt: string;
}

/**
 * The sequential-thinking tools: `sequentialthinking` keeps the reference server's name (not our
 * snake_case) so prompts and clients written for it keep working; `reset_thinking` is ours, because
 * the history outlives the conversation and a user must be able to delete it.
 */
import { defineTool } from "../mcp/tool";
import { MAX_HISTORY, MAX_THOUGHT_CHARS, resetInput, resetResult, thoughtInput, thoughtResult } from "./thinking.schema";

const DESCRIPTION = `Think through a problem one step at a time, in a chain of numbered thoughts you can revise, branch and extend.
Use it to break down a complex problem, to plan with room for course corrections, for analysis whose scope is unclear at first, and whenever a task needs its context kept over several steps.

How to use it:
- Call it once per thought. Start with thoughtNumber 1 and a first estimate in totalThoughts; raise or lower the estimate as you learn. Going past it is fine: totalThoughts is raised to thoughtNumber.
- To reconsider an earlier thought, set isRevision: true and revisesThought to its number.
- To explore an alternative, set branchFromThought to the thought you branch from and branchId to a name for the branch.
- Set needsMoreThoughts when you reached the planned end but need more.
- Form a hypothesis, check it against the chain, repeat until satisfied; set nextThoughtNeeded to false only when you have a satisfactory answer, then give that single answer.

Storage: your thoughts are kept for you across requests and sessions — the latest ${MAX_HISTORY.toLocaleString("en-US")} thoughts; older ones are dropped. A thought numbered 1 that is neither a revision nor a branch starts a new thread; revisesThought and branchFromThought must name a thought of the current thread. A thought is at most ${MAX_THOUGHT_CHARS.toLocaleString("en-US")} characters. reset_thinking deletes the history.

Returns thoughtNumber, totalThoughts (as adjusted), nextThoughtNeeded, branches (all branch ids in the history), thoughtHistoryLength, and thread (the current thread's id, thought count and branches).`;

export const thinkingTools = [
  defineTool({
    name: "sequentialthinking",
    title: "Sequential thinking",
    description: DESCRIPTION,
    input: thoughtInput,
    output: thoughtResult,
    // Not the reference's readOnly/idempotent: here every call appends to a stored history.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scopes: ["thinking"],
    run: async (args, { user, services }) => {
      const data = await services.thinking.record(user.id, args);
      // The reference answers with this JSON as its text; clients that read only text still get it.
      return { data, text: JSON.stringify(data, null, 2) };
    },
  }),
  defineTool({
    name: "reset_thinking",
    title: "Reset thinking history",
    description:
      "Delete all of your stored sequential-thinking thoughts, in every thread. The next sequentialthinking call starts from an empty history. Returns how many thoughts were deleted.",
    input: resetInput,
    output: resetResult,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scopes: ["thinking"],
    run: async (_args, { user, services }) => {
      const cleared = await services.thinking.reset(user.id);
      return { data: { cleared }, text: `Deleted ${cleared} thought${cleared === 1 ? "" : "s"}.` };
    },
  }),
];

/**
 * The bounds of a user's stored thinking, apart from the zod schemas that describe them: the
 * ThinkingLog object applies them and is evaluated when a new isolate starts, where zod is not.
 */

/** Thoughts kept per user; recording one more drops the oldest. */
export const MAX_HISTORY = 1000;
export const MAX_THOUGHT_CHARS = 20_000;
export const MAX_BRANCH_ID_CHARS = 100;

/**
 * Zod issues rendered as one message that names each offending field, shared by REST and MCP
 * so a client sees the same wording on both.
 */
import type { z } from "zod";
import { AppError } from "./errors";

type Issue = z.core.$ZodIssue;

const within = (parent: Issue, issues: readonly Issue[]): Issue[] =>
  issues.map((issue) => ({ ...issue, path: [...parent.path, ...issue.path] }));

/** The option of a union the value's own type matched: the only one that did not fail on the value's type itself. */
function matchedOption(issue: z.core.$ZodIssueInvalidUnion): Issue[] | undefined {
  const matched = issue.errors.filter((option) => !option.some((i) => i.code === "invalid_type" && i.path.length === 0));
  return matched.length === 1 ? matched[0] : undefined;
}

/**
 * Issues as precise as zod knows them: a union of differently typed options (a list or an object,
 * say) reports what is wrong inside the option the value's type matched, and a bad record key
 * reports the key's own rule — instead of a bare "Invalid input".
 */
export function leafIssues(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code === "invalid_union") {
      const option = matchedOption(issue);
      if (option) return leafIssues(within(issue, option));
    }
    if (issue.code === "invalid_key") return leafIssues(within(issue, issue.issues));
    return [issue];
  });
}

export function describeIssues(issues: readonly Issue[]): string {
  return leafIssues(issues)
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "input";
      return `${path}: ${issue.message}`;
    })
    .join("; ");
}

/** Parse or throw an `invalid_input` AppError naming the fields. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const field = leafIssues(result.error.issues)[0]?.path.join(".");
  throw new AppError("invalid_input", `Invalid input — ${describeIssues(result.error.issues)}`, {
    details: field ? { field } : undefined,
  });
}

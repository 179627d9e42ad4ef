/**
 * Zod issues rendered as one message that names each offending field, shared by REST and MCP
 * so a client sees the same wording on both.
 */
import type { z } from "zod";
import { AppError } from "./errors";

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
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
  const field = result.error.issues[0]?.path.join(".");
  throw new AppError("invalid_input", `Invalid input — ${describeIssues(result.error.issues)}`, {
    details: field ? { field } : undefined,
  });
}

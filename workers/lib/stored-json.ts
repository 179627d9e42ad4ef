/**
 * Limits for free-form JSON a user can store and later read back (RAG metadata, a source's
 * manifest, an upstream's tool schemas). Every read returns it inside a response envelope, so
 * what we store must stay parseable by common JSON clients: .NET's System.Text.Json stops at 64
 * levels by default (the strictest common default; Ruby's is 100, serde_json's 128), and an MCP
 * or REST envelope adds up to eight. Half of 64 leaves room for any envelope (decision 0024).
 */
import * as z from "zod";
import type { JsonObject } from "./json";

/** Levels of nesting a stored JSON value may have: `{}` and `[]` count one level each. */
export const MAX_JSON_DEPTH = 32;

/**
 * How deeply `value` nests, counted without recursion (a hostile value may be thousands of levels
 * deep); counting stops once `limit` is exceeded, so the cost is bounded by the value's size.
 */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** Why `value` cannot be stored as JSON, or undefined when it can. */
export function storedJsonProblem(value: unknown, maxBytes: number): string | undefined {
  if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    return `must nest at most ${MAX_JSON_DEPTH} levels deep (each object or array is one level)`;
  }
  if (new TextEncoder().encode(JSON.stringify(value)).byteLength > maxBytes) return `must be at most ${maxBytes} bytes as JSON`;
  return undefined;
}

/** A JSON object field whose value is stored: any keys and values, within the depth and size limits. */
export function storedJsonObject(maxBytes: number): z.ZodType<JsonObject, JsonObject> {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const problem = storedJsonProblem(value, maxBytes);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
}

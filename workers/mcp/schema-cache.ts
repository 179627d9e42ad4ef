/**
 * Tool schemas with their JSON Schema computed once per isolate instead of once per request.
 *
 * A fresh McpServer per request (no state shared between clients) means the SDK converts every
 * tool's zod schemas to JSON Schema on every tools/list, and the called tool's output schema on
 * every tools/call — half the CPU of a tools/list. The conversion depends only on the schema, so
 * it is memoised here and deep-frozen: what is shared between requests cannot be mutated.
 * Validation still runs zod itself, through the Standard Schema interface.
 */
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";

type Io = "input" | "output";
type JsonSchema = Record<string, unknown>;

const wrappers = new WeakMap<z.ZodType, StandardSchemaWithJSON>();

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function cachedJsonSchema<S extends z.ZodType>(schema: S): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const existing = wrappers.get(schema);
  if (existing) return existing as StandardSchemaWithJSON<z.input<S>, z.output<S>>;

  const standard: StandardSchemaWithJSON<z.input<S>, z.output<S>>["~standard"] = schema["~standard"];
  const converted = new Map<string, JsonSchema>();
  const convert = (io: Io) => (options: { target: string }) => {
    const key = `${io}:${options.target}`;
    let json = converted.get(key);
    if (!json) {
      json = deepFreeze(standard.jsonSchema[io](options as Parameters<typeof standard.jsonSchema.input>[0]));
      converted.set(key, json);
    }
    return json;
  };
  const wrapper: StandardSchemaWithJSON<z.input<S>, z.output<S>> = {
    "~standard": {
      version: 1,
      vendor: standard.vendor,
      validate: (value, options) => standard.validate(value, options),
      jsonSchema: { input: convert("input"), output: convert("output") },
    },
  };
  wrappers.set(schema, wrapper as StandardSchemaWithJSON);
  return wrapper;
}

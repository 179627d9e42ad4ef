/**
 * Inputs derived from an advertised JSON Schema (a tool's inputSchema, an OpenAPI parameter or
 * request body): a plain valid value for a node, and arbitraries for values the schema itself
 * rejects. "Rejects" is decided by a real validator (@cfworker/json-schema), never by guessing,
 * so a corrupted input is invalid by the server's own published contract.
 */
import { type Schema, Validator } from "@cfworker/json-schema";
import fc from "fast-check";

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: unknown;
  [key: string]: unknown;
};

/** A path into the input: property names and array indexes, as validation errors name them. */
export type Path = (string | number)[];

const validators = new WeakMap<JsonSchema, Validator>();

export function accepts(schema: JsonSchema, value: unknown): boolean {
  let validator = validators.get(schema);
  // The JSON Schema the server published, read as the validator's own type.
  if (!validator) validators.set(schema, (validator = new Validator(schema as Schema, "2020-12")));
  return validator.validate(value).valid;
}

const SAMPLE_STRINGS: Record<string, string> = {
  "date-time": "2031-01-02T03:04:05Z",
  date: "2031-01-02",
  uuid: "0b6c1c6e-2c6a-4b8a-9d3e-1f2a3b4c5d6e",
  uri: "http://localhost/mcp/tasks",
};

/** A valid value for `schema`: its default, first option, or the smallest value of its type. */
export function validValue(schema: JsonSchema): unknown {
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return validValue(branches.find((branch) => branch.type !== "null") ?? branches[0]!);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string": {
      const sample = schema.format ? SAMPLE_STRINGS[schema.format] : undefined;
      if (sample) return sample;
      for (const candidate of ["x", "1", "x1", "add_task", "Authorization"]) {
        const padded = candidate.padEnd(schema.minLength ?? 1, "x");
        if (accepts(schema, padded)) return padded;
      }
      if (schema.pattern) {
        const matching = fc
          .sample(fc.stringMatching(new RegExp(schema.pattern)), { seed: 1, numRuns: 50 })
          .find((text) => accepts(schema, text));
        if (matching !== undefined) return matching;
      }
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
    }
    case "integer":
      return Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, schema.minimum ?? (schema.exclusiveMinimum ?? 0) + 1);
    case "number":
      return schema.minimum ?? (schema.maximum !== undefined ? Math.min(0.5, schema.maximum) : 0.5);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => validValue(schema.items ?? {}));
    case "object":
      return Object.fromEntries((schema.required ?? []).map((name) => [name, validValue(schema.properties?.[name] ?? {})]));
    default:
      return "x";
  }
}

/** The smallest valid value for an object schema: its required properties only. */
export function validBase(schema: JsonSchema): Record<string, unknown> {
  return Object.fromEntries((schema.required ?? []).map((name) => [name, validValue(schema.properties?.[name] ?? {})]));
}

const anyJson = fc.jsonValue({ maxDepth: 2 });
const wrongTypes = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(anyJson, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), anyJson, { maxKeys: 3 }),
);

/** Values aimed at a node's constraints (lengths, ranges, formats, options), not only its type. */
function constraintBreakers(schema: JsonSchema): fc.Arbitrary<unknown>[] {
  const breakers: fc.Arbitrary<unknown>[] = [wrongTypes];
  if (schema.maxLength !== undefined && schema.maxLength <= 10_000) {
    // Letters only: a server that trims whitespace before counting must still see it as too long.
    breakers.push(fc.integer({ min: 1, max: 20 }).map((extra) => "y".repeat(schema.maxLength! + extra)));
  }
  if ((schema.minLength ?? 0) > 0) breakers.push(fc.constant(""));
  if (schema.enum || schema.const !== undefined || schema.pattern || schema.format) {
    breakers.push(fc.constantFrom("not-an-option", "0x10", " 1", "1e0", "../..", "2031-13-45", "x,y", "", "\u0000"));
    breakers.push(fc.string({ maxLength: 20 }));
  }
  const bounds = [schema.minimum, schema.exclusiveMinimum, schema.maximum, schema.exclusiveMaximum].filter(
    (b): b is number => b !== undefined,
  );
  if (bounds.length > 0 || schema.type === "integer") {
    breakers.push(
      fc.constantFrom(...bounds.flatMap((bound) => [bound - 1, bound + 1, bound]), 1.5, -1, 0, Number.MAX_SAFE_INTEGER + 1, 1e300, -1e300),
    );
  }
  if (schema.maxItems !== undefined && schema.maxItems <= 200) {
    breakers.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, () => validValue(schema.items ?? {}))));
  }
  if ((schema.minItems ?? 0) > 0) breakers.push(fc.constant([]));
  return breakers;
}

/** A value `schema` rejects (decided by the validator; arbitraries that cannot produce one are skipped by the caller). */
export function invalidValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.oneof(...constraintBreakers(schema)).filter((value) => !accepts(schema, value));
}

/** One field of an object input made invalid: the path to it, and its new value (`undefined` = left out). */
export interface Corruption {
  path: Path;
  value: unknown;
}

/**
 * The ways to corrupt one field of `schema` (an object): any property set to a value its own
 * schema rejects, a required property left out, or one field of the first item of an array of
 * objects (documents[0].text) — each with the path a validation error must name.
 */
export function corruptions(schema: JsonSchema, prefix: Path = [], depth = 0): fc.Arbitrary<Corruption>[] {
  const options: fc.Arbitrary<Corruption>[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = [...prefix, name];
    options.push(invalidValue(property).map((value) => ({ path, value })));
    if ((schema.required ?? []).includes(name)) options.push(fc.constant({ path, value: undefined }));
    const item = property.items;
    if (depth === 0 && property.type === "array" && item?.type === "object" && item.properties) {
      options.push(...corruptions(item, [...path, 0], depth + 1));
    }
  }
  return options;
}

/** `base` with the corruption applied (an array on the way gets one valid item to hold it). */
export function applyCorruption(schema: JsonSchema, base: Record<string, unknown>, { path, value }: Corruption): Record<string, unknown> {
  const copy = structuredClone(base);
  let node: Record<string | number, unknown> = copy;
  let nodeSchema: JsonSchema = schema;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const childSchema: JsonSchema = typeof key === "number" ? (nodeSchema.items ?? {}) : (nodeSchema.properties?.[key] ?? {});
    if (node[key] === undefined || node[key] === null) {
      node[key] = typeof path[i + 1] === "number" ? [validValue(childSchema.items ?? {})] : validBase(childSchema);
    } else if (Array.isArray(node[key]) && (node[key] as unknown[]).length === 0) {
      node[key] = [validValue(childSchema.items ?? {})];
    }
    node = node[key] as Record<string | number, unknown>;
    nodeSchema = childSchema;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

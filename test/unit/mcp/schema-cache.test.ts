import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cachedJsonSchema } from "../../../workers/mcp/schema-cache";

const schema = z.object({ title: z.string().min(1), when: z.iso.date().optional() });
const target = { target: "draft-2020-12" } as const;

describe("cachedJsonSchema", () => {
  it("converts once: the same frozen JSON Schema object every time, equal to zod's own", () => {
    const wrapped = cachedJsonSchema(schema);
    const first = wrapped["~standard"].jsonSchema.input(target);
    expect(wrapped["~standard"].jsonSchema.input(target)).toBe(first);
    expect(first).toEqual(schema["~standard"].jsonSchema.input(target));
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first["properties"])).toBe(true);
    expect(cachedJsonSchema(schema)).toBe(wrapped);
  });

  it("keeps input and output conversions apart", () => {
    const withDefault = z.object({ limit: z.int().default(5) });
    const wrapped = cachedJsonSchema(withDefault)["~standard"].jsonSchema;
    expect(wrapped.input(target)).toEqual(withDefault["~standard"].jsonSchema.input(target));
    expect(wrapped.output(target)).toEqual(withDefault["~standard"].jsonSchema.output(target));
    expect(wrapped.input(target)).not.toEqual(wrapped.output(target));
  });

  it("still validates with zod", async () => {
    const validate = cachedJsonSchema(schema)["~standard"].validate;
    expect(await validate({ title: "ok" })).toEqual({ value: { title: "ok" } });
    const bad = await validate({ title: "" });
    expect("issues" in bad && bad.issues?.[0]?.path).toEqual(["title"]);
  });
});

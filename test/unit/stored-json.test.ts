/** The depth and size limits on JSON a user stores (decision 0024). */
import { describe, expect, it } from "vitest";
import { jsonDepth, MAX_JSON_DEPTH, storedJsonObject, storedJsonProblem } from "../../workers/lib/stored-json";

function nested(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = i % 2 === 0 ? { x: value } : [value];
  return value;
}

describe("jsonDepth", () => {
  it.each([
    ["a scalar", 5, 0],
    ["null", null, 0],
    ["{}", {}, 1],
    ["[]", [], 1],
    ["an object in an array", [{ a: 1 }], 2],
    ["the deepest branch", { a: { b: { c: [] } }, d: 1 }, 4],
  ])("%s nests %#", (_, value, depth) => {
    expect(jsonDepth(value)).toBe(depth);
  });

  it("counts 10,000 levels without recursion, and stops once past a limit", () => {
    expect(jsonDepth(nested(10_000))).toBe(10_000);
    expect(jsonDepth(nested(10_000), 40)).toBe(41);
  });
});

describe("storedJsonProblem", () => {
  it("accepts exactly the maximum depth and refuses one more, saying why", () => {
    expect(storedJsonProblem(nested(MAX_JSON_DEPTH), 1_000_000)).toBeUndefined();
    expect(storedJsonProblem(nested(MAX_JSON_DEPTH + 1), 1_000_000)).toBe(
      `must nest at most ${MAX_JSON_DEPTH} levels deep (each object or array is one level)`,
    );
  });

  it("measures size in UTF-8 bytes of the JSON text", () => {
    expect(storedJsonProblem({ a: "é" }, 10)).toBeUndefined(); // {"a":"é"} is 10 bytes
    expect(storedJsonProblem({ a: "éé" }, 10)).toBe("must be at most 10 bytes as JSON");
  });
});

describe("storedJsonObject", () => {
  it("is a zod schema that takes any object within the limits and names the problem otherwise", () => {
    const schema = storedJsonObject(100);
    expect(schema.parse({ any: ["thing", 1, null] })).toEqual({ any: ["thing", 1, null] });
    const tooBig = schema.safeParse({ text: "x".repeat(200) });
    expect(tooBig.success).toBe(false);
    expect(tooBig.error?.issues[0]?.message).toBe("must be at most 100 bytes as JSON");
    expect(schema.safeParse(["not", "an", "object"]).success).toBe(false);
  });
});

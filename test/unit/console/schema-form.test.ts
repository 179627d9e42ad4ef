// @vitest-environment happy-dom
/**
 * The console's form-from-schema logic outside the browser: which input each JSON Schema shape
 * gets (fieldKind, table-driven), and what a filled form reads back as tool arguments — the
 * values, the left-out optional fields, the conversions (local date-time to UTC, lines to an
 * array) and the FieldError that names a bad field. happy-dom stands in for the page's DOM.
 */
import { describe, expect, it } from "vitest";
import { FieldError, fieldKind, schemaForm } from "../../../public/js/schema-form.js";

describe("fieldKind", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["a plain string", { type: "string" }, "text"],
    ["a long string", { type: "string", maxLength: 5000 }, "longtext"],
    ["a short bounded string", { type: "string", maxLength: 200 }, "text"],
    ["a date", { type: "string", format: "date" }, "date"],
    ["a date-time", { type: "string", format: "date-time" }, "datetime"],
    [
      "a date or date-time union",
      {
        anyOf: [
          { type: "string", format: "date" },
          { type: "string", format: "date-time" },
        ],
      },
      "datetime",
    ],
    ["a nullable string (type array)", { type: ["string", "null"] }, "text"],
    ["a nullable date-time (anyOf with null)", { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] }, "datetime"],
    ["an integer", { type: "integer", minimum: 1 }, "number"],
    ["a number", { type: "number" }, "number"],
    ["a boolean", { type: "boolean" }, "boolean"],
    ["a string enum", { type: "string", enum: ["low", "high"] }, "enum"],
    ["a number enum", { enum: [1, 2, 3] }, "enum"],
    ["a const", { const: "x" }, "json"],
    ["an array of strings", { type: "array", items: { type: "string" } }, "lines"],
    ["an array of enum strings", { type: "array", items: { type: "string", enum: ["a", "b"] } }, "multiselect"],
    ["an array of dates", { type: "array", items: { type: "string", format: "date" } }, "json"],
    ["an array of objects", { type: "array", items: { type: "object" } }, "json"],
    ["an object", { type: "object", properties: { x: { type: "string" } } }, "json"],
    ["a union of different types", { anyOf: [{ type: "string" }, { type: "number" }] }, "json"],
    ["no type at all", {}, "json"],
  ];
  it.each(cases)("%s is a %s… field", (_, schema, kind) => {
    expect(fieldKind(schema).kind).toBe(kind);
  });
});

/** Fills the form field `name` (an input, select or textarea) as a person would. */
function fill(element: HTMLElement, name: string, value: string): void {
  const control = element.querySelector<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(`[name="${name}"]`);
  if (!control) throw new Error(`no field ${name} in the form`);
  control.value = value;
}

const TASK_SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string", maxLength: 200 },
    description: { type: "string", maxLength: 5000 },
    priority: { type: "string", enum: ["none", "low", "medium", "high"] },
    due_date: {
      anyOf: [
        { type: "string", format: "date" },
        { type: "string", format: "date-time" },
      ],
    },
    tags: { type: "array", items: { type: "string" } },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    done: { type: "boolean" },
    metadata: { type: "object" },
  },
  required: ["title"],
};

describe("schemaForm read-back", () => {
  it("gives the entered values as arguments and leaves unset optional fields out", () => {
    const form = schemaForm(TASK_SCHEMA, { idPrefix: "t1" });
    fill(form.element, "title", "Call mom");
    fill(form.element, "priority", "high");
    fill(form.element, "tags", "family\n\n  phone  \n");
    fill(form.element, "limit", "5");
    fill(form.element, "done", "false");
    fill(form.element, "metadata", '{"source": "test"}');
    expect(form.read()).toEqual({
      title: "Call mom",
      priority: "high",
      tags: ["family", "phone"],
      limit: 5,
      done: false,
      metadata: { source: "test" },
    });
  });

  it("sends a local date-time as a UTC ISO instant", () => {
    const form = schemaForm(TASK_SCHEMA, { idPrefix: "t2" });
    fill(form.element, "title", "x");
    fill(form.element, "due_date", "2027-03-04T05:06");
    expect(form.read()).toEqual({ title: "x", due_date: new Date("2027-03-04T05:06").toISOString() });
  });

  it.each([
    ["a required field left empty", {}, "title", /is required/],
    ["a fraction where a whole number is due", { title: "x", limit: "2.5" }, "limit", /whole number/],
    ["a JSON field that is not JSON", { title: "x", metadata: "{oops" }, "metadata", /not valid JSON/],
  ])("refuses %s with a FieldError naming the field", (_, values, field, says) => {
    const form = schemaForm(TASK_SCHEMA, { idPrefix: `t3-${field}` });
    for (const [name, value] of Object.entries(values)) fill(form.element, name, value);
    let thrown: unknown;
    try {
      form.read();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FieldError);
    expect((thrown as FieldError).field).toBe(field);
    expect((thrown as FieldError).message).toMatch(says);
  });

  it("an optional boolean without a default stays unset rather than false", () => {
    const form = schemaForm({ type: "object", properties: { flag: { type: "boolean" } } }, { idPrefix: "t4" });
    expect(form.read()).toEqual({});
    fill(form.element, "flag", "true");
    expect(form.read()).toEqual({ flag: true });
  });

  it("checkboxes of an enum array read back the chosen values", () => {
    const form = schemaForm(
      { type: "object", properties: { kinds: { type: "array", items: { type: "string", enum: ["a", "b", "c"] } } } },
      { idPrefix: "t5" },
    );
    expect(form.read()).toEqual({});
    form.element.querySelector<HTMLInputElement>("#t5-kinds-c")!.checked = true;
    form.element.querySelector<HTMLInputElement>("#t5-kinds-a")!.checked = true;
    expect(form.read()).toEqual({ kinds: ["a", "c"] });
  });

  it("a schema with no properties but open extras starts as raw JSON, which must be an object", () => {
    const form = schemaForm({ type: "object", additionalProperties: true }, { idPrefix: "t6" });
    const raw = form.element.querySelector<HTMLTextAreaElement>("#t6-raw")!;
    raw.value = '{"anything": [1, 2]}';
    expect(form.read()).toEqual({ anything: [1, 2] });
    raw.value = "[1, 2]";
    expect(() => form.read()).toThrow(/arguments: must be a JSON object/);
  });

  it("defaults fill the fields and are read back unchanged", () => {
    const form = schemaForm(
      {
        type: "object",
        properties: { k: { type: "integer", default: 10 }, mode: { type: "string", enum: ["a", "b"], default: "b" } },
        required: ["mode"],
      },
      { idPrefix: "t7" },
    );
    expect(form.read()).toEqual({ k: 10, mode: "b" });
  });
});

// @ts-check
// A form generated from a tool's JSON Schema (inputSchema). Supported field kinds: strings (text,
// long text, date, date-time), numbers and integers with their bounds, booleans, enums (select),
// arrays of strings (one per line, or checkboxes for an enum). Anything else (nested objects,
// arrays of objects, unions of different types) gets a raw-JSON box for that field, and the whole
// form can be replaced by raw JSON arguments.
import { h, uid } from "./dom.js";

/**
 * The parts of JSON Schema the form reads.
 * @typedef {{ type?: string | string[], format?: string, enum?: unknown[], const?: unknown, default?: unknown,
 *   title?: string, description?: string, items?: JsonSchema, properties?: Record<string, JsonSchema>, required?: string[],
 *   anyOf?: JsonSchema[], oneOf?: JsonSchema[], allOf?: JsonSchema[], additionalProperties?: boolean | JsonSchema,
 *   minimum?: number, maximum?: number, exclusiveMinimum?: number, exclusiveMaximum?: number,
 *   minLength?: number, maxLength?: number }} JsonSchema
 */
/** @typedef {"enum" | "json" | "datetime" | "date" | "longtext" | "text" | "number" | "boolean" | "multiselect" | "lines"} FieldKind */

/** A user-facing problem with one field. */
export class FieldError extends Error {
  /**
   * @param {string} field
   * @param {string} message
   */
  constructor(field, message) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

const NULL_TYPE = (/** @type {JsonSchema | undefined} */ s) =>
  s && (s.type === "null" || (Array.isArray(s.type) && s.type.length === 1 && s.type[0] === "null"));

/**
 * Drops `null` from a type union: an optional-or-null field is entered like the plain one.
 * @param {JsonSchema | undefined} schema
 * @returns {JsonSchema}
 */
function unwrapNullable(schema) {
  if (!schema || typeof schema !== "object") return schema ?? {};
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    if (types.length === 1) return { ...schema, type: types[0] };
  }
  for (const key of /** @type {const} */ (["anyOf", "oneOf"])) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      const rest = branches.filter((s) => !NULL_TYPE(s));
      if (rest.length === 1) return { ...schema, ...rest[0], [key]: undefined, description: schema.description ?? rest[0].description };
    }
  }
  return schema;
}

/**
 * anyOf/oneOf whose branches are all strings (e.g. date | date-time) is one string field.
 * @param {JsonSchema} schema
 * @returns {JsonSchema | undefined}
 */
function stringUnion(schema) {
  const branches = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(branches) || branches.length === 0) return undefined;
  if (!branches.every((b) => b && b.type === "string")) return undefined;
  const formats = branches.map((b) => b.format).filter(Boolean);
  return {
    ...schema,
    type: "string",
    anyOf: undefined,
    oneOf: undefined,
    format: formats.includes("date-time") ? "date-time" : formats[0],
  };
}

/**
 * Which input a property gets.
 * @param {JsonSchema} raw
 * @returns {{ kind: FieldKind, schema: JsonSchema, items?: JsonSchema }}
 */
export function fieldKind(raw) {
  let schema = unwrapNullable(raw);
  schema = stringUnion(schema) ?? schema;
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string" || typeof v === "number")) {
    return { kind: "enum", schema };
  }
  if (schema.const !== undefined) return { kind: "json", schema };
  switch (schema.type) {
    case "string":
      if (schema.format === "date-time") return { kind: "datetime", schema };
      if (schema.format === "date") return { kind: "date", schema };
      // Room for prose (descriptions, questions) gets a text area; short fields and filters a line.
      return { kind: (schema.maxLength ?? 0) >= 2000 ? "longtext" : "text", schema };
    case "integer":
    case "number":
      return { kind: "number", schema };
    case "boolean":
      return { kind: "boolean", schema };
    case "array": {
      const items = unwrapNullable(schema.items ?? {});
      if (items.type === "string" && Array.isArray(items.enum)) return { kind: "multiselect", schema, items };
      if (items.type === "string" && !items.format) return { kind: "lines", schema, items };
      return { kind: "json", schema };
    }
    default:
      return { kind: "json", schema };
  }
}

/**
 * The local date-time a datetime-local input shows for an ISO instant.
 * @param {string | number | Date} iso
 */
function toLocalInput(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * A help line that is there (filter(Boolean), typed).
 * @param {string | undefined} text
 * @returns {text is string}
 */
function isText(text) {
  return Boolean(text);
}

/** @param {JsonSchema} schema */
function numberHint(schema) {
  const parts = [];
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) parts.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.exclusiveMaximum !== undefined) parts.push(`< ${schema.exclusiveMaximum}`);
  return parts.length ? `${schema.type === "integer" ? "Whole number" : "Number"} ${parts.join(", ")}.` : "";
}

/**
 * One field: its element and a read() giving the value, or undefined to leave it out.
 * @param {string} name
 * @param {JsonSchema} raw
 * @param {boolean} required
 * @param {string} idPrefix
 * @returns {{ element: HTMLElement, read: () => unknown }}
 */
function buildField(name, raw, required, idPrefix) {
  const { kind, schema, items } = fieldKind(raw);
  const id = `${idPrefix}-${name}`;
  const helpId = `${id}-help`;
  const help = [
    schema.description ?? raw.description,
    kind === "number" ? numberHint(schema) : "",
    kind === "lines" ? "One per line." : "",
    kind === "datetime" ? "Your local time; sent as UTC ISO 8601." : "",
    kind === "json" ? "JSON value." : "",
  ]
    .filter(isText)
    .map((text) => (/[.!?)]$/.test(text) ? text : `${text}.`))
    .join(" ");
  const described = help ? { "aria-describedby": helpId } : {};
  const common = { id, name, ...described, ...(required ? { required: true, "aria-required": "true" } : {}) };
  const fallback = schema.default;
  /** @type {HTMLElement} */
  let control;
  /** @type {() => unknown} */
  let read;

  switch (kind) {
    case "enum": {
      const choices = schema.enum ?? [];
      const options = [
        !required || fallback === undefined ? h("option", { value: "" }, required ? "— choose —" : "— not set —") : null,
        ...choices.map((value) => h("option", { value: String(value), selected: fallback === value }, String(value))),
      ];
      const select = h("select", common, options);
      control = select;
      read = () => {
        if (select.value === "") return undefined;
        const match = choices.find((value) => String(value) === select.value);
        return match;
      };
      break;
    }
    case "datetime": {
      const input = h("input", {
        ...common,
        type: "datetime-local",
        step: "60",
        value: fallback ? toLocalInput(/** @type {string} */ (fallback)) : "",
      });
      control = input;
      read = () => {
        if (input.value === "") return undefined;
        const date = new Date(input.value);
        if (Number.isNaN(date.getTime())) throw new FieldError(name, "is not a valid date and time");
        return date.toISOString();
      };
      break;
    }
    case "date": {
      const input = h("input", { ...common, type: "date", value: fallback ?? "" });
      control = input;
      read = () => (input.value === "" ? undefined : input.value);
      break;
    }
    case "text":
    case "longtext": {
      const attrs = {
        ...common,
        value: fallback ?? "",
        ...(schema.maxLength !== undefined ? { maxlength: schema.maxLength } : {}),
        ...(schema.minLength !== undefined ? { minlength: schema.minLength } : {}),
      };
      const box = kind === "text" ? h("input", { ...attrs, type: "text", autocomplete: "off" }) : h("textarea", { ...attrs, rows: "4" });
      control = box;
      if (kind === "longtext" && fallback) box.value = /** @type {string} */ (fallback);
      read = () => (box.value === "" ? undefined : box.value);
      break;
    }
    case "number": {
      const integer = schema.type === "integer";
      const input = h("input", {
        ...common,
        type: "number",
        inputmode: integer ? "numeric" : "decimal",
        step: integer ? "1" : "any",
        min: schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 0) : undefined),
        max: schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 0) : undefined),
        value: fallback ?? "",
      });
      control = input;
      read = () => {
        if (input.value.trim() === "") return undefined;
        const value = Number(input.value);
        if (!Number.isFinite(value)) throw new FieldError(name, "must be a number");
        if (integer && !Number.isInteger(value)) throw new FieldError(name, "must be a whole number");
        return value;
      };
      break;
    }
    case "boolean":
      if (required || fallback !== undefined) {
        const box = h("input", { ...common, required: false, "aria-required": null, type: "checkbox", checked: fallback === true });
        control = box;
        read = () => box.checked;
      } else {
        // Optional without a default: "not set" must stay distinguishable from false.
        const select = h(
          "select",
          common,
          h("option", { value: "" }, "— not set —"),
          h("option", { value: "true" }, "true"),
          h("option", { value: "false" }, "false"),
        );
        control = select;
        read = () => (select.value === "" ? undefined : select.value === "true");
      }
      break;
    case "multiselect": {
      const boxes = (items?.enum ?? []).map((value) => {
        const boxId = `${id}-${value}`;
        return h(
          "label",
          { class: "check", for: boxId },
          h("input", { type: "checkbox", id: boxId, value: String(value), checked: Array.isArray(fallback) && fallback.includes(value) }),
          ` ${value}`,
        );
      });
      const fieldset = h("fieldset", { id, class: "checks", ...described }, h("legend", { class: "sr-only" }, name), boxes);
      control = fieldset;
      read = () => {
        const chosen = [.../** @type {NodeListOf<HTMLInputElement>} */ (fieldset.querySelectorAll("input:checked"))].map(
          (box) => box.value,
        );
        return chosen.length === 0 && !required ? undefined : chosen;
      };
      break;
    }
    case "lines": {
      const box = h("textarea", { ...common, rows: "2" });
      control = box;
      if (Array.isArray(fallback)) box.value = fallback.join("\n");
      read = () => {
        const values = box.value
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== "");
        return values.length === 0 && !required ? undefined : values;
      };
      break;
    }
    default: {
      const box = h("textarea", { ...common, rows: "3", class: "mono", spellcheck: "false" });
      control = box;
      if (fallback !== undefined) box.value = JSON.stringify(fallback, null, 2);
      read = () => {
        if (box.value.trim() === "") return undefined;
        try {
          return JSON.parse(box.value);
        } catch (error) {
          throw new FieldError(name, `is not valid JSON (${/** @type {Error} */ (error).message})`);
        }
      };
    }
  }

  const label = h(
    "label",
    { for: id, class: "field-label" },
    h("code", {}, name),
    schema.title || raw.title ? ` — ${schema.title ?? raw.title}` : "",
    required ? h("span", { class: "required", "aria-hidden": "true", title: "required" }, " *") : null,
  );
  const wrapper = h(
    "div",
    { class: `field field-${kind}`, "data-field": name },
    kind === "boolean" && control instanceof HTMLInputElement && control.type === "checkbox"
      ? h("div", { class: "inline" }, control, label)
      : [label, control],
    help ? h("p", { class: "help", id: helpId }, help) : null,
  );
  return {
    element: wrapper,
    read: () => {
      const value = read();
      if (value === undefined && required) throw new FieldError(name, "is required");
      return value;
    },
  };
}

/**
 * The form for `schema`: returns { element, read } where read() gives the arguments object or
 * throws FieldError naming the field. With "raw JSON" switched on, the arguments are that JSON.
 * @param {JsonSchema | undefined} schema
 * @param {{ idPrefix?: string }} [options]
 * @returns {{ element: HTMLElement, read: () => Record<string, unknown> }}
 */
export function schemaForm(schema, { idPrefix = uid("form") } = {}) {
  const properties = schema && typeof schema.properties === "object" ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const fields = Object.entries(properties).map(([name, property]) => ({
    name,
    ...buildField(name, property ?? {}, required.has(name), idPrefix),
  }));
  // A schema with no usable shape (no properties but extra ones allowed, combinators at the top) starts in raw mode.
  const complex =
    fields.length === 0 &&
    schema?.additionalProperties !== false &&
    (schema?.additionalProperties || schema?.anyOf || schema?.oneOf || schema?.allOf);

  const rawId = `${idPrefix}-raw`;
  const rawToggleId = `${idPrefix}-raw-toggle`;
  const rawBox = h("textarea", { id: rawId, class: "mono", rows: "6", spellcheck: "false", "aria-describedby": `${rawId}-help` });
  rawBox.value = "{}";
  const rawSection = h(
    "div",
    { class: "field raw", hidden: !complex },
    h("label", { for: rawId, class: "field-label" }, "Arguments as JSON"),
    rawBox,
    h("p", { class: "help", id: `${rawId}-help` }, "Sent as the tool's arguments object, exactly as written."),
  );
  const fieldBox = h(
    "div",
    { class: "fields" },
    fields.length > 0 ? fields.map((f) => f.element) : h("p", { class: "muted" }, "This tool takes no arguments."),
  );
  if (complex) fieldBox.hidden = true;
  const toggle = h("input", { type: "checkbox", id: rawToggleId, checked: Boolean(complex) });
  toggle.addEventListener("change", () => {
    if (toggle.checked) {
      // Carry what was entered so far into the JSON box.
      try {
        rawBox.value = JSON.stringify(readFields(), null, 2);
      } catch {
        // keep the previous raw text when the form is incomplete
      }
    }
    fieldBox.hidden = toggle.checked;
    rawSection.hidden = !toggle.checked;
  });

  function readFields() {
    /** @type {Record<string, unknown>} */
    const args = {};
    for (const field of fields) {
      const value = field.read();
      if (value !== undefined) args[field.name] = value;
    }
    return args;
  }

  function read() {
    if (!toggle.checked) return readFields();
    let value;
    try {
      value = JSON.parse(rawBox.value || "{}");
    } catch (error) {
      throw new FieldError("arguments", `not valid JSON (${/** @type {Error} */ (error).message})`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new FieldError("arguments", "must be a JSON object");
    return value;
  }

  const element = h(
    "div",
    { class: "schema-form" },
    fieldBox,
    h("div", { class: "inline raw-toggle" }, toggle, h("label", { for: rawToggleId }, "Edit arguments as raw JSON")),
    rawSection,
  );
  return { element, read };
}

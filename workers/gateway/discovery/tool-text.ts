/**
 * The text of an upstream's tool definitions made safe to republish (decision 0049): what a person
 * reading the console, a terminal or a client's tool list cannot see, but a model reads, is
 * removed — Unicode tag characters (U+E0000–E007F, "ASCII smuggling"), bidirectional controls,
 * zero-width and other format characters, runs of variation selectors, C0 and C1 control
 * characters (descriptions keep line feeds and tabs) and terminal escape sequences with what they
 * carry (an OSC hyperlink's target, a title-setting payload). Over-long descriptions and titles are
 * shortened. Each change is counted, so the owner can be told what was removed and where.
 * Pure: no binding, no I/O.
 */
import type { JsonObject } from "../../lib/json";
import { isJsonObject } from "../../lib/json";

export type RemovedKind = "escape" | "tag" | "bidi" | "variation" | "format" | "control";

const KIND_NAMES: Record<RemovedKind, [one: string, many: string]> = {
  escape: ["terminal escape sequence", "terminal escape sequences"],
  tag: ["Unicode tag character", "Unicode tag characters"],
  bidi: ["bidirectional control", "bidirectional controls"],
  variation: ["stacked variation selector", "stacked variation selectors"],
  format: ["zero-width or other invisible format character", "zero-width or other invisible format characters"],
  control: ["control character", "control characters"],
};

/**
 * ESC sequences as terminals read them — CSI (`ESC [` … final byte), OSC (`ESC ]` … BEL or ST), DCS,
 * SOS, PM and APC strings (to ST), two-byte escapes — and their 8-bit C1 forms. A string sequence
 * left unterminated runs to the end of the text, as a terminal would hide it.
 */
const ESCAPE_SEQUENCE = new RegExp(
  [
    String.raw`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~])?`,
    String.raw`\x9b[0-?]*[ -/]*[@-~]`,
    String.raw`[\x90\x98\x9d-\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?`,
  ].join("|"),
  "g",
);
const TAG = /[\u{E0000}-\u{E007F}]/gu;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
/** Variation selectors 17–256 (never needed by text), and any selector 1–16 not right after a character of its own. */
const VARIATION = /[\u{E0100}-\u{E01EF}]|(?:^|(?<=[\uFE00-\uFE0F]))[\uFE00-\uFE0F]/gu;
/** Every other format character (Cf: zero-width space, joiners, word joiner, BOM, soft hyphen …) and the blank Hangul fillers. */
const FORMAT = /[\p{Cf}\u115F\u1160\u3164\uFFA0]/gu;
/** C0 and C1 controls and DEL, but tab and line feed (a description keeps them). */
const CONTROL_KEEPING_LINES = /[\0-\x08\x0B-\x1F\x7F-\x9F]/g;
/** Tab, line feed, carriage return and the Unicode line separators: a title is one line. */
const TITLE_LINE_BREAK = /[\t\n\r\u2028\u2029]+/g;

export type RemovedCounts = Partial<Record<RemovedKind, number>>;

function remove(text: string, pattern: RegExp, kind: RemovedKind, counts: RemovedCounts, replacement = ""): string {
  return text.replace(pattern, () => {
    counts[kind] = (counts[kind] ?? 0) + 1;
    return replacement;
  });
}

/** `description`: multi-line text (line feeds and tabs kept); `title`: one line, spaces collapsed. */
export type TextShape = "description" | "title";

/** The text without what cannot be seen, and how much of each kind went. */
export function cleanText(text: string, shape: TextShape, counts: RemovedCounts = {}): string {
  let clean = remove(text, ESCAPE_SEQUENCE, "escape", counts);
  clean = remove(clean, TAG, "tag", counts);
  clean = remove(clean, BIDI, "bidi", counts);
  clean = remove(clean, VARIATION, "variation", counts);
  clean = remove(clean, FORMAT, "format", counts);
  if (shape === "title") {
    // A line break in a title can fake a second line of whatever shows it: counted, made a space.
    clean = remove(clean, TITLE_LINE_BREAK, "control", counts, " ");
    clean = remove(clean, CONTROL_KEEPING_LINES, "control", counts);
    return clean.replace(/\s+/g, " ").trim();
  }
  // Windows line ends are line ends; a lone carriage return can make a terminal overwrite a line.
  clean = clean.replace(/\r\n/g, "\n").replace(/[\u2028\u2029]/g, "\n");
  clean = remove(clean, /\r/g, "control", counts);
  return remove(clean, CONTROL_KEEPING_LINES, "control", counts);
}

/** "12 Unicode tag characters and 1 terminal escape sequence"; empty when nothing was removed. */
export function describeRemoved(counts: RemovedCounts): string {
  const parts = (Object.keys(KIND_NAMES) as RemovedKind[])
    .filter((kind) => (counts[kind] ?? 0) > 0)
    .map((kind) => {
      const n = counts[kind]!;
      return `${n.toLocaleString("en-US")} ${KIND_NAMES[kind][n === 1 ? 0 : 1]}`;
    });
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)!}`;
}

/** At most `max` UTF-16 code units, ending in "…" when cut; a surrogate pair is never split. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * A copy of a JSON Schema (or an annotations object) whose every `description` and `title` string,
 * at any depth, is cleaned; other values are left alone (an enum value or a default is data, not
 * text shown to a reader). Depth is bounded by the stored-JSON rule checked before this runs.
 */
export function cleanSchemaText(value: JsonObject, counts: RemovedCounts): JsonObject {
  return cleanNode(value, counts) as JsonObject;
}

function cleanNode(node: unknown, counts: RemovedCounts): unknown {
  if (Array.isArray(node)) return node.map((item) => cleanNode(item, counts));
  if (!isJsonObject(node)) return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (typeof value === "string" && (key === "description" || key === "title")) copy[key] = cleanText(value, key, counts);
    else copy[key] = cleanNode(value, counts);
  }
  return copy;
}

// @ts-check
// One source's review in the Gateway sources panel (decision 0049): the tools held because their
// definition changed upstream, or they are new, since the owner approved — each with what changed,
// the approved definition beside the current one, and an Approve button (POST
// /api/sources/:id/changes/approve); the source's warnings; and each tool's warnings saying what
// was removed from or shortened in its text. Approving is here and over REST only, never an MCP tool.
import { api } from "./api.js";
import { clear, h } from "./dom.js";
import { errorView } from "./step-up.js";

/**
 * A held tool as GET /api/sources/:id/changes lists it.
 * @typedef {{ title: string | null, description: string, input_schema: unknown, output_schema: unknown, annotations: unknown }} Definition
 * @typedef {{ name: string, gateway_name: string, change: "new" | "changed", changed_fields: string[],
 *   approved: Definition | null, current: Definition, detected_at: string | null }} ToolChange
 * @typedef {{ name: string, gateway_name: string, warnings?: string[] }} ToolWithWarnings
 * @typedef {{ changes: ToolChange[], tools: ToolWithWarnings[], warnings: string[] }} Review
 */

const FIELD_LABELS = /** @type {const} */ ({
  title: "Title",
  description: "Description",
  input_schema: "Input schema",
  output_schema: "Output schema",
  annotations: "The upstream's annotations",
});

/** @param {unknown} value */
function shown(value) {
  if (value === null || value === undefined) return "(none)";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/**
 * One held tool: what changed, before and now, and its Approve button.
 * @param {ToolChange} change
 * @param {(names: string[] | undefined) => void} onApprove
 */
export function changeView(change, onApprove) {
  const approve = h("button", { type: "button", class: "primary", "data-approve": change.name }, `Approve ${change.gateway_name}`);
  approve.addEventListener("click", () => onApprove([change.name]));
  const fields = change.change === "new" ? ["title", "description", "input_schema", "output_schema", "annotations"] : change.changed_fields;
  return h(
    "li",
    { class: "held-change", "data-held": change.name },
    h(
      "p",
      {},
      h("strong", {}, change.gateway_name),
      " ",
      h("span", { class: "badge" }, change.change === "new" ? "new tool" : `changed: ${change.changed_fields.join(", ")}`),
    ),
    fields.map((field) => {
      const key = /** @type {keyof Definition} */ (field);
      const label = FIELD_LABELS[key] ?? field;
      if (change.change === "new" || !change.approved) {
        return h("div", {}, h("p", { class: "small" }, label), h("pre", { "data-now": field }, shown(change.current[key])));
      }
      return h(
        "div",
        { class: "held-diff" },
        h("p", { class: "small" }, `${label} — approved`),
        h("pre", { "data-before": field }, shown(change.approved[key])),
        h("p", { class: "small" }, `${label} — now`),
        h("pre", { "data-now": field }, shown(change.current[key])),
      );
    }),
    approve,
  );
}

/**
 * The whole review of a source: held changes (with Approve all), source warnings, tool warnings.
 * @param {Review} review
 * @param {(names: string[] | undefined) => void} onApprove `undefined`: every held tool
 */
export function reviewView(review, onApprove) {
  const parts = [];
  if (review.changes.length > 0) {
    const all = h("button", { type: "button", "data-approve-all": "" }, `Approve all ${review.changes.length}`);
    all.addEventListener("click", () => onApprove(undefined));
    parts.push(
      h("h3", {}, "Held until you approve them"),
      h(
        "p",
        { class: "muted small" },
        "Not listed on ",
        h("code", {}, "/mcp"),
        " and not callable: the upstream changed these tools' ",
        "definitions, or added them, since you approved this source's tools. Read what they say now before approving.",
      ),
      h(
        "ul",
        { class: "held-changes" },
        review.changes.map((change) => changeView(change, onApprove)),
      ),
      review.changes.length > 1 ? all : null,
    );
  } else {
    parts.push(h("p", { class: "muted" }, "No changes waiting for approval."));
  }
  if (review.warnings.length > 0) {
    parts.push(
      h("h3", {}, "Warnings"),
      h(
        "ul",
        {},
        review.warnings.map((warning) => h("li", { class: "small" }, warning)),
      ),
    );
  }
  const cleaned = review.tools.filter((tool) => (tool.warnings ?? []).length > 0);
  if (cleaned.length > 0) {
    parts.push(
      h("h3", {}, "Text removed or shortened"),
      h(
        "ul",
        { class: "tool-warnings" },
        cleaned.map((tool) =>
          h(
            "li",
            { "data-tool-warnings": tool.name },
            h("code", {}, tool.gateway_name),
            h(
              "ul",
              {},
              (tool.warnings ?? []).map((warning) => h("li", { class: "small" }, warning)),
            ),
          ),
        ),
      ),
    );
  }
  return h("div", { class: "source-review" }, parts);
}

/**
 * Loads and shows a source's review into `container`; an approval reloads the panel.
 * @param {HTMLElement} container
 * @param {number} sourceId
 * @param {() => void} reload
 */
export async function renderSourceReview(container, sourceId, reload) {
  clear(container, h("p", { class: "muted" }, "Loading…"));
  let review;
  try {
    const [changes, detail] = await Promise.all([api(`/api/sources/${sourceId}/changes`), api(`/api/sources/${sourceId}`)]);
    review = { changes: changes.changes, tools: detail.tools, warnings: detail.source.warnings };
  } catch (error) {
    clear(container, errorView(error, "Could not load the source's changes"));
    return;
  }
  const status = h("p", { class: "small", "aria-live": "polite" });
  /** @param {string[] | undefined} names */
  const approve = async (names) => {
    for (const button of container.querySelectorAll("button")) button.disabled = true;
    clear(status, "Approving…");
    try {
      await api(`/api/sources/${sourceId}/changes/approve`, { method: "POST", body: names ? { tools: names } : {} });
      reload();
    } catch (error) {
      clear(status, errorView(error, "Could not approve"));
      for (const button of container.querySelectorAll("button")) button.disabled = false;
    }
  };
  clear(container, reviewView(review, approve), status);
}

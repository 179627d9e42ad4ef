// @ts-check
// RAG health from the rag_health tool (called over MCP like any client would): overall status,
// D1, the last hour's traffic, and p50/p95 latency as an inline SVG bar chart.
import { errorView } from "./step-up.js";
import { clear, formatMs, formatRate, formatTime, h, svg } from "./dom.js";
import { McpClient } from "./mcp.js";

/**
 * rag_health's structured content (the fields shown here).
 * @typedef {{ pipeline: string, status: string, queries_last_hour: number, error_rate: number | null,
 *   last_success: string | null, last_error: string | null, p50_ms?: number | null, p95_ms?: number | null }} PipelineHealth
 * @typedef {{ status: string, checked_at: string, d1: { connected: boolean, response_time_ms?: number | null, error?: string | null },
 *   last_hour: { queries: number, queries_per_minute: number, error_rate: number | null, p50_ms: number, p95_ms: number },
 *   pipelines: PipelineHealth[] }} RagHealth
 * @typedef {{ label: string, p50: number, p95: number }} ChartRow
 */

/** @param {HTMLElement} panel */
export async function renderRagPanel(panel) {
  const body = h(
    "div",
    { class: "panel-body", "aria-live": "polite", "aria-busy": "true" },
    h("p", { class: "muted" }, "Asking rag_health…"),
  );
  const refresh = h("button", { type: "button" }, "Refresh");
  refresh.addEventListener("click", () => renderRagPanel(panel));
  clear(panel, h("div", { class: "panel-head" }, h("h2", {}, "RAG health"), refresh), body);
  /** @type {RagHealth} */
  let health;
  try {
    const result = await new McpClient("/mcp/rag").callTool("rag_health", {});
    if (result.isError)
      throw new Error(result.content?.map((/** @type {{ text?: string }} */ c) => c.text).join(" ") || "rag_health failed");
    health = result.structuredContent;
    if (!health) throw new Error("rag_health returned no structured content");
  } catch (error) {
    clear(body, errorView(error, "Could not read RAG health"));
    body.setAttribute("aria-busy", "false");
    return;
  }
  const hour = health.last_hour;
  clear(
    body,
    h(
      "p",
      { class: "summary" },
      "Status ",
      h("span", { class: `state state-${health.status}` }, health.status),
      " · D1 ",
      health.d1.connected
        ? `connected (${formatMs(health.d1.response_time_ms)})`
        : h("span", { class: "bad" }, `unreachable: ${health.d1.error ?? "no answer"}`),
      " · checked ",
      formatTime(health.checked_at),
    ),
    h("p", {}, `Your last hour: ${hour.queries} queries (${hour.queries_per_minute}/min), error rate ${formatRate(hour.error_rate)}.`),
    latencyChart(health),
    hour.queries === 0 ? h("p", { class: "muted" }, "No queries in the last hour: the bars fill in once a rag_* tool answers.") : null,
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "pipelines" },
        h("caption", {}, "Pipelines over the last hour: status over everyone's queries, figures over yours"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Pipeline", "Status", "Queries", "Error rate", "Last success", "Last error"].map((label) => h("th", { scope: "col" }, label)),
          ),
        ),
        h(
          "tbody",
          {},
          health.pipelines.map((p) =>
            h(
              "tr",
              {},
              h("th", { scope: "row" }, h("code", {}, p.pipeline)),
              h("td", {}, h("span", { class: `state state-${p.status}` }, p.status)),
              h("td", {}, String(p.queries_last_hour)),
              h("td", {}, formatRate(p.error_rate)),
              h("td", {}, formatTime(p.last_success)),
              h("td", {}, p.last_error ? formatTime(p.last_error) : "—"),
            ),
          ),
        ),
      ),
    ),
  );
  body.setAttribute("aria-busy", "false");
}

/**
 * Rows of paired p50/p95 bars: "all pipelines" from last_hour, then each pipeline that reports
 * its own p50_ms/p95_ms. Every bar has a <title>; the chart's <title>/<desc> say it in words.
 * @param {RagHealth} health
 */
export function latencyChart(health) {
  const rows = [{ label: "all pipelines", p50: health.last_hour.p50_ms, p95: health.last_hour.p95_ms }];
  for (const p of health.pipelines) {
    if (typeof p.p50_ms === "number" && typeof p.p95_ms === "number") rows.push({ label: p.pipeline, p50: p.p50_ms, p95: p.p95_ms });
  }
  const max = Math.max(1, ...rows.flatMap((row) => [row.p50, row.p95]));
  const labelWidth = 150;
  const barArea = 420;
  const barHeight = 16;
  const rowHeight = barHeight * 2 + 18;
  const height = rows.length * rowHeight + 40;
  const width = labelWidth + barArea + 90;
  const scale = (/** @type {number} */ value) => Math.max(value > 0 ? 2 : 0, (value / max) * barArea);
  const description = rows.map((row) => `${row.label}: p50 ${formatMs(row.p50)}, p95 ${formatMs(row.p95)}`).join("; ");
  const ticks = [0, 0.5, 1].map((f) => f * max);

  return h(
    "figure",
    { class: "chart" },
    svg(
      "svg",
      {
        viewBox: `0 0 ${width} ${height}`,
        role: "img",
        "aria-labelledby": "rag-chart-title rag-chart-desc",
        class: "latency-chart",
        "data-rows": rows.length,
      },
      svg("title", { id: "rag-chart-title" }, "RAG query latency, last hour (p50 and p95)"),
      svg("desc", { id: "rag-chart-desc" }, description),
      ticks.map((tick) => {
        const x = labelWidth + scale(tick);
        return [
          svg("line", { x1: x, x2: x, y1: 4, y2: height - 28, class: "grid" }),
          svg("text", { x, y: height - 10, class: "tick", "text-anchor": "middle" }, formatMs(tick)),
        ];
      }),
      rows.map((row, index) => {
        const y = 8 + index * rowHeight;
        return svg(
          "g",
          { class: "row", "data-label": row.label },
          svg("text", { x: labelWidth - 8, y: y + barHeight + 4, class: "label", "text-anchor": "end" }, row.label),
          bar("p50", row, labelWidth, y, scale(row.p50), barHeight),
          bar("p95", row, labelWidth, y + barHeight + 2, scale(row.p95), barHeight),
        );
      }),
    ),
    h(
      "figcaption",
      {},
      h("span", { class: "key key-p50" }),
      " p50 ",
      h("span", { class: "key key-p95" }),
      " p95 — latency of answered queries, last hour",
    ),
  );
}

/**
 * @param {"p50" | "p95"} kind
 * @param {ChartRow} row
 * @param {number} x
 * @param {number} y
 * @param {number} length
 * @param {number} height
 */
function bar(kind, row, x, y, length, height) {
  const value = row[kind];
  return svg(
    "g",
    {},
    svg(
      "rect",
      { x, y, width: length, height, class: `bar bar-${kind}`, "data-value": value },
      svg("title", {}, `${row.label} ${kind}: ${formatMs(value)}`),
    ),
    svg("text", { x: x + length + 6, y: y + height - 4, class: "value" }, `${kind} ${formatMs(value)}`),
  );
}

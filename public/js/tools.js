// @ts-check
// The servers and their tools, listed over MCP itself (tools/list on each endpoint), with each
// tool's schemas and a form generated from its input schema to call it.
import { openApp } from "./app-host.js";
import { appPolicy, appUriOf, GATEWAY_ROUTE, visibleTo } from "./app-policy.js";
import { errorView } from "./step-up.js";
import { clear, errorBox, h, jsonBlock } from "./dom.js";
import { McpClient } from "./mcp.js";
import { FieldError, schemaForm } from "./schema-form.js";

/** A server as /api/servers lists it. */
/** @typedef {{ name: string, title: string, route: string, description: string }} ServerInfo */
/**
 * A tool as tools/list gives it, plus the client that calls it.
 * @typedef {{ name: string, title?: string, description?: string, inputSchema?: import("./schema-form.js").JsonSchema,
 *   outputSchema?: unknown, annotations?: Record<string, unknown>, _meta?: Record<string, unknown>, client: McpClient }} ListedTool
 */
/** A tools/call result. */
/** @typedef {{ isError?: boolean, content?: { type: string, text?: string, data?: unknown, mimeType?: string }[], structuredContent?: unknown }} ToolResult */

const ANNOTATION_LABELS = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "open world"],
];

/**
 * @param {HTMLElement} panel
 * @param {ServerInfo[]} servers
 */
export function renderToolsPanel(panel, servers) {
  const view = h(
    "div",
    { class: "tool-view", id: "tool-view", tabindex: "-1" },
    h("p", { class: "placeholder" }, "Choose a tool on the left to see its schemas and call it."),
  );
  const filter = h("input", { type: "search", id: "tool-filter", placeholder: "Filter tools", "aria-label": "Filter tools by name" });
  const list = h("div", { class: "server-list" });
  // The gateway's list changes as sources are added or hidden: list every server again.
  const reload = h("button", { type: "button", class: "reload", title: "List every server's tools again" }, "Reload tools");
  reload.addEventListener("click", () => renderToolsPanel(panel, servers));
  const nav = h("nav", { class: "servers", "aria-label": "Servers and tools" }, h("div", { class: "inline" }, filter, reload), list);
  clear(panel, h("h2", { class: "sr-only" }, "Servers and tools"), h("div", { class: "tools-layout" }, nav, view));

  /**
   * Each endpoint's whole tools/list, app-only tools included: what an app opened from it may call (app-policy.js).
   * @type {Map<string, Promise<any[]>>}
   */
  const listings = new Map();
  /** @type {HTMLElement | undefined} */
  let selected;
  /**
   * @param {ServerInfo} server
   * @param {ListedTool} tool
   * @param {HTMLElement} button
   */
  const select = (server, tool, button) => {
    selected?.setAttribute("aria-pressed", "false");
    button.setAttribute("aria-pressed", "true");
    selected = button;
    showTool(view, server, tool, listings);
  };

  for (const server of servers) {
    const tools = h("ul", { class: "tool-list", "aria-label": `${server.title} tools` }, h("li", { class: "muted" }, "Loading tools…"));
    const count = h("span", { class: "count" });
    // The gateway repeats every built-in tool: it starts folded so the others stay in view.
    list.append(
      h(
        "details",
        { class: "server", "data-server": server.name, open: server.route !== "/mcp" },
        h("summary", {}, h("h3", { id: `server-${server.name}` }, server.title, " ", count)),
        h("p", {}, h("code", {}, server.route), " ", h("span", { class: "muted small" }, server.description)),
        tools,
      ),
    );
    const client = new McpClient(server.route);
    const listing = client.listTools();
    listings.set(server.route, listing);
    listing.then(
      (all) => {
        // A tool only an app may call (`_meta.ui.visibility` without "model") is not offered here.
        const found = all.filter((tool) => visibleTo(tool, "model"));
        count.textContent = `(${found.length})`;
        clear(
          tools,
          found.length === 0
            ? h("li", { class: "muted" }, "No tools.")
            : found.map((tool) => {
                const button = h(
                  "button",
                  {
                    type: "button",
                    class: "tool-button",
                    "aria-pressed": "false",
                    "data-tool": tool.name,
                    title: tool.title ?? tool.description ?? tool.name,
                  },
                  tool.name,
                );
                button.addEventListener("click", () => select(server, { ...tool, client }, button));
                return h("li", {}, button);
              }),
        );
      },
      (error) => clear(tools, h("li", {}, errorView(error, "Could not list tools"))),
    );
  }

  filter.addEventListener("input", () => {
    const needle = filter.value.trim().toLowerCase();
    for (const server of /** @type {NodeListOf<HTMLDetailsElement>} */ (list.querySelectorAll(".server"))) {
      let matches = 0;
      for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (server.querySelectorAll(".tool-button"))) {
        const hit = needle === "" || String(button.dataset["tool"]).toLowerCase().includes(needle);
        /** @type {HTMLElement} */ (button.parentElement).hidden = !hit;
        if (hit) matches += 1;
      }
      // Unfold a folded server that has a match, so a filter never hides what it found.
      if (needle !== "" && matches > 0) server.open = true;
    }
  });
}

/**
 * The policy of the app `tool` opens: on /mcp, an app of a built-in keeps to the tools of its own
 * server, known from that server's own listing.
 * @param {ServerInfo} server
 * @param {ListedTool} tool
 * @param {Map<string, Promise<any[]>>} listings
 */
async function policyFor(server, tool, listings) {
  const tools = (await listings.get(server.route)) ?? [];
  /** @type {Set<string> | undefined} */
  let serverTools;
  if (server.route === GATEWAY_ROUTE) {
    for (const [route, listing] of listings) {
      if (route === GATEWAY_ROUTE) continue;
      const names = new Set((await listing.catch(() => [])).map((/** @type {{ name: string }} */ listed) => listed.name));
      if (names.has(tool.name)) serverTools = names;
    }
    serverTools ??= new Set([tool.name]);
  }
  return appPolicy({ route: server.route, tool, tools, ...(serverTools ? { serverTools } : {}) });
}

/**
 * @param {HTMLElement} view
 * @param {ServerInfo} server
 * @param {ListedTool} tool
 * @param {Map<string, Promise<any[]>>} listings
 */
function showTool(view, server, tool, listings) {
  const appUri = appUriOf(tool);
  const { element: formFields, read } = schemaForm(tool.inputSchema ?? { type: "object" }, { idPrefix: `arg-${server.name}-${tool.name}` });
  const result = h("section", { class: "result-area", "aria-live": "polite", "aria-label": "Result" });
  const submit = h("button", { type: "submit", class: "primary" }, `Call ${tool.name}`);
  const form = h(
    "form",
    { class: "call-form", "aria-label": `Arguments for ${tool.name}`, novalidate: true },
    formFields,
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let args;
    try {
      args = read();
    } catch (error) {
      clear(result, errorBox(/** @type {Error} */ (error).message, error instanceof FieldError ? "Check the form" : "Error"));
      if (error instanceof FieldError)
        /** @type {HTMLElement | null} */ (form.querySelector(`[name="${CSS.escape(error.field)}"]`))?.focus();
      return;
    }
    submit.disabled = true;
    clear(result, h("p", { class: "muted" }, `Calling ${tool.name}…`));
    const started = performance.now();
    try {
      const answer = await tool.client.callTool(tool.name, args);
      clear(result, renderResult(answer, performance.now() - started));
      if (appUri && !answer.isError) {
        const place = h("section", { class: "app", "aria-label": `App ${appUri}` }, h("h4", {}, "App ", h("code", {}, appUri)));
        result.append(place);
        const policy = await policyFor(server, tool, listings);
        await openApp(place, { client: tool.client, policy, uri: appUri, toolName: tool.name, args, result: answer }).catch((error) =>
          place.append(errorView(error, `Could not open ${appUri}`)),
        );
      }
    } catch (error) {
      clear(result, errorView(error, `Calling ${tool.name} failed`));
    } finally {
      submit.disabled = false;
    }
  });

  const annotations = tool.annotations ?? {};
  clear(
    view,
    h(
      "article",
      { class: "tool", "data-tool": tool.name, "aria-labelledby": "tool-heading" },
      h("h2", { id: "tool-heading" }, h("code", {}, tool.name), h("span", { class: "muted" }, ` on ${server.route}`)),
      appUri ? h("p", { class: "badges" }, h("span", { class: "badge", title: appUri }, "opens an app")) : null,
      tool.title ? h("p", { class: "tool-title" }, tool.title) : null,
      tool.description ? h("p", { class: "description" }, tool.description) : null,
      h(
        "p",
        { class: "badges" },
        ANNOTATION_LABELS.filter(([key]) => annotations[key] === true).map(([, label]) => h("span", { class: "badge" }, label)),
      ),
      h(
        "details",
        { class: "schema" },
        h("summary", {}, "Input schema"),
        jsonBlock(tool.inputSchema ?? {}, { "aria-label": `Input schema of ${tool.name}` }),
      ),
      tool.outputSchema
        ? h(
            "details",
            { class: "schema" },
            h("summary", {}, "Output schema"),
            jsonBlock(tool.outputSchema, { "aria-label": `Output schema of ${tool.name}` }),
          )
        : h("p", { class: "muted" }, "No output schema: results are text only."),
      h("h3", {}, "Call it"),
      form,
      result,
    ),
  );
  view.focus();
}

/**
 * A tools/call result: its text, its structured content pretty-printed, isError in red.
 * @param {ToolResult} result
 * @param {number} elapsedMs
 */
export function renderResult(result, elapsedMs) {
  const isError = result.isError === true;
  const parts = (result.content ?? []).map((item) => {
    if (item.type === "text") return h("pre", { class: "text", tabindex: "0" }, item.text);
    if (item.type === "image" && typeof item.data === "string")
      return h("img", { src: `data:${item.mimeType};base64,${item.data}`, alt: "Image returned by the tool" });
    return jsonBlock(item);
  });
  return h(
    "div",
    { class: isError ? "result is-error" : "result", ...(isError ? { role: "alert" } : {}) },
    h("h4", {}, isError ? "The tool answered with an error" : "Result", h("span", { class: "muted" }, ` · ${Math.round(elapsedMs)} ms`)),
    parts.length ? parts : h("p", { class: "muted" }, "No content."),
    result.structuredContent !== undefined
      ? h(
          "div",
          { class: "structured" },
          h("h4", {}, "Structured content"),
          jsonBlock(result.structuredContent, { "aria-label": "Structured content" }),
        )
      : null,
  );
}

// @ts-check
// What an MCP App opened in the console may reach (decision 0071; docs/security.md, "What an app can
// reach"). The host forwards an app's requests to the endpoint that served the app's tool, and only:
//  - tools/call of a tool of the same server or source, listed there, whose `_meta.ui.visibility`
//    includes "app" (absent: model and app). An app of source `s` (a `s__x` tool on /mcp) names its
//    source's tools as the source does: `x` is called as `s__x`.
//  - resources/read of a `ui://` URI of that same source (an app of `s` names `ui://x/…`, read as
//    `ui://s__x/…`); on /mcp, an app of a built-in reads only built-in `ui://` URIs.
// Anything else is refused with a JSON-RPC error, before any request leaves the console.
import { gatewayUri, splitGatewayName, splitGatewayUri } from "./gateway-names.js";

export const GATEWAY_ROUTE = "/mcp";
/** The JSON-RPC error code of a refused app request (invalid params: the name or URI is not the app's to use). */
export const REFUSED = -32602;

/** A request the host will not forward; the bridge answers it as a JSON-RPC error with this code. */
export class AppRequestRefused extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.code = REFUSED;
  }
}

/** @typedef {{ name: string, _meta?: Record<string, unknown> }} ListedToolMeta */

/**
 * @param {ListedToolMeta} tool
 * @returns {Record<string, unknown> | undefined}
 */
function uiMeta(tool) {
  const ui = tool._meta?.["ui"];
  return typeof ui === "object" && ui !== null && !Array.isArray(ui) ? /** @type {Record<string, unknown>} */ (ui) : undefined;
}

/**
 * The app a tool opens: its `ui://` resource URI (`_meta.ui.resourceUri`, or the extension's older flat key).
 * @param {ListedToolMeta} tool
 */
export function appUriOf(tool) {
  const uri = uiMeta(tool)?.["resourceUri"] ?? tool._meta?.["ui/resourceUri"];
  return typeof uri === "string" && uri.startsWith("ui://") ? uri : undefined;
}

/**
 * Who a tool is for (`_meta.ui.visibility`; absent or not a list: both the model and the app).
 * @param {ListedToolMeta} tool
 * @param {"model" | "app"} audience
 */
export function visibleTo(tool, audience) {
  const visibility = uiMeta(tool)?.["visibility"];
  return !Array.isArray(visibility) || visibility.includes(audience);
}

/**
 * The policy of one opened app.
 * @param {{ route: string, tool: ListedToolMeta, tools: readonly ListedToolMeta[], serverTools?: ReadonlySet<string> }} opened
 *   route: the endpoint that served the app's tool; tool: that tool; tools: the endpoint's whole tools/list;
 *   serverTools: on /mcp, for a built-in's app, the names its own server lists (/mcp/<server>).
 */
export function appPolicy({ route, tool, tools, serverTools }) {
  const onGateway = route === GATEWAY_ROUTE;
  const slug = onGateway ? splitGatewayName(tool.name)?.slug : undefined;
  const listed = new Map(tools.map((listedTool) => [listedTool.name, listedTool]));

  return {
    route,
    slug,
    /**
     * The name to call on `route` for the app's `name`; throws AppRequestRefused.
     * @param {unknown} name
     */
    toolName(name) {
      if (typeof name !== "string" || name === "") throw new AppRequestRefused("The app named no tool");
      const target = slug === undefined ? name : `${slug}__${name}`;
      const found = listed.get(target);
      if (!found) throw new AppRequestRefused(`The app may not call ${name}: ${route} lists no tool ${target}`);
      if (onGateway && slug === undefined) {
        // An app of a built-in on /mcp: only its own server's tools, never a source's or another server's.
        if (splitGatewayName(target) !== undefined || (serverTools !== undefined && !serverTools.has(target)))
          throw new AppRequestRefused(`The app may not call ${name}: it is not a tool of the app's own server`);
      }
      if (!visibleTo(found, "app")) throw new AppRequestRefused(`The app may not call ${name}: its visibility leaves out apps`);
      return target;
    },
    /**
     * The URI to read on `route` for the app's `uri`; throws AppRequestRefused.
     * @param {unknown} uri
     */
    resourceUri(uri) {
      if (typeof uri !== "string" || !uri.startsWith("ui://"))
        throw new AppRequestRefused(`The app may read only ui:// resources, not ${String(uri).slice(0, 200)}`);
      if (slug !== undefined) {
        const target = gatewayUri(slug, uri);
        if (target === undefined) throw new AppRequestRefused(`Not a URI: ${uri.slice(0, 200)}`);
        return target;
      }
      if (onGateway && splitGatewayUri(uri) !== undefined)
        throw new AppRequestRefused(`The app may not read ${uri.slice(0, 200)}: it belongs to a source, not to the app's server`);
      return uri;
    },
  };
}

/** @typedef {ReturnType<typeof appPolicy>} AppPolicy */

// A CSP source the app may name: a scheme and host (a `*.` wildcard allowed), an optional port,
// nothing else: no quotes, keywords, paths or separators that could add a directive.
const CSP_SOURCE = /^(https|wss):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?$/;

/**
 * @param {unknown} list
 * @returns {string[]}
 */
function sources(list) {
  return Array.isArray(list) ? list.filter((item) => typeof item === "string" && CSP_SOURCE.test(item)) : [];
}

/**
 * The Content-Security-Policy of an app, from its resource's `_meta.ui.csp` (the extension's
 * connectDomains, resourceDomains, frameDomains, baseUriDomains); everything else stays closed.
 * @param {unknown} csp
 */
export function appCsp(csp) {
  const declared = typeof csp === "object" && csp !== null ? /** @type {Record<string, unknown>} */ (csp) : {};
  const resource = sources(declared["resourceDomains"]).join(" ");
  const list = (/** @type {string[]} */ items) => (items.length ? items.join(" ") : "'none'");
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resource}`.trim(),
    `style-src 'unsafe-inline' ${resource}`.trim(),
    `img-src data: blob: ${resource}`.trim(),
    `font-src data: ${resource}`.trim(),
    `media-src data: blob: ${resource}`.trim(),
    `connect-src ${list(sources(declared["connectDomains"]))}`,
    `frame-src ${list(sources(declared["frameDomains"]))}`,
    `base-uri ${list(sources(declared["baseUriDomains"]))}`,
    "form-action 'none'",
    "object-src 'none'",
  ].join("; ");
}

/**
 * The app's HTML with its policy as the document's first element, before anything of the app's:
 * the parser puts it in the head, so it governs every script and request of the document.
 * @param {string} html
 * @param {string} policy
 */
export function withCsp(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replaceAll("&", "&amp;").replaceAll('"', "&quot;")}">`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}${meta}${html.slice(doctype[0].length)}` : `${meta}${html}`;
}

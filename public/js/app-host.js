// @ts-check
// The console as an MCP Apps host (decision 0071): a tool whose listing names a `ui://` app opens it,
// after its call, in a sandboxed iframe (`allow-scripts` only: an opaque origin that reaches none of
// the console's storage or tokens) and talks to it through the extension's own host side, AppBridge
// over PostMessageTransport. Every request of the app passes app-policy.js first.
//
// The frame is /app-frame.html (public/_headers: framed by this origin only), whose loader writes the
// app's HTML — the app's CSP (`_meta.ui.csp`, app-policy.js#appCsp) as its first element — into itself.
// A srcdoc frame would inherit the console's own CSP, which allows no inline script.
// The bridge's bundle (public/generated/app-bridge.js, about 650 KiB) is imported on the first app opened,
// so the console's start never loads it.
import { appCsp, withCsp } from "./app-policy.js";
import { h } from "./dom.js";

export const APP_MIME_TYPE = "text/html;profile=mcp-app";
export const FRAME_PATH = "/app-frame";
const HOST_INFO = { name: "mcp-edge-console", version: "1.0.0" };

/** @typedef {import("./app-policy.js").AppPolicy} AppPolicy */
/**
 * What the host needs of an MCP endpoint: public/js/mcp.js's McpClient.
 * @typedef {{ request(method: string, params?: Record<string, unknown>): Promise<any>, callTool(name: string, args: Record<string, unknown>): Promise<any> }} AppClient
 */

/**
 * The app's document: the `ui://` resource read from the endpoint that served its tool.
 * @param {AppClient} client
 * @param {string} uri
 */
export async function readApp(client, uri) {
  const result = await client.request("resources/read", { uri });
  const content = Array.isArray(result?.contents) ? result.contents.find((/** @type {any} */ item) => item?.uri === uri) : undefined;
  if (!content || typeof content.text !== "string") throw new Error(`${uri} has no HTML text`);
  if (content.mimeType !== APP_MIME_TYPE) throw new Error(`${uri} is ${content.mimeType ?? "untyped"}, not ${APP_MIME_TYPE}`);
  const ui = content._meta?.ui ?? result?._meta?.ui;
  return { html: String(content.text), csp: ui?.csp };
}

/** The extension's host side, loaded once, on first use. */
const bridgeModule = () => import("../generated/app-bridge.js");

/**
 * The bridge of one app, its requests answered by `policy` and `client` only.
 * @param {AppPolicy} policy
 * @param {AppClient} client
 */
export async function createBridge(policy, client) {
  const { AppBridge } = await bridgeModule();
  const bridge = new AppBridge(
    null,
    HOST_INFO,
    { serverTools: {}, serverResources: {}, openLinks: {} },
    { hostContext: { theme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light", displayMode: "inline" } },
  );
  bridge.oncalltool = async (params) => client.callTool(policy.toolName(params.name), params.arguments ?? {});
  bridge.onreadresource = async (params) => client.request("resources/read", { uri: policy.resourceUri(params.uri) });
  // A link opens in a new tab of its own, never with a reference back to the console.
  bridge.onopenlink = async ({ url }) => {
    const safe = /^https?:\/\//i.test(url);
    if (safe) window.open(url, "_blank", "noopener,noreferrer");
    return safe ? {} : { isError: true };
  };
  return bridge;
}

/**
 * Opens an app below a tool's result: reads it, frames it, and sends it the call's arguments and result.
 * @param {HTMLElement} container
 * @param {{ client: AppClient, policy: AppPolicy, uri: string, toolName: string, args: Record<string, unknown>, result: any }} app
 * @returns {Promise<HTMLIFrameElement>}
 */
export async function openApp(container, { client, policy, uri, toolName, args, result }) {
  const { html, csp } = await readApp(client, uri);
  const frame = h("iframe", {
    class: "app-frame",
    sandbox: "allow-scripts",
    title: `App of ${toolName}`,
    "data-app": uri,
    referrerpolicy: "no-referrer",
  });
  const bridge = await createBridge(policy, client);
  const { PostMessageTransport } = await bridgeModule();
  bridge.onsizechange = ({ height }) => {
    if (typeof height === "number" && height > 0) frame.style.height = `${Math.min(Math.ceil(height), 4000)}px`;
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: args });
    void bridge.sendToolResult(result);
  };
  const ready = new Promise((resolve) => {
    /** @param {MessageEvent} event */
    const onReady = (event) => {
      if (event.source !== frame.contentWindow || event.data?.type !== "mcp-edge/app-frame-ready") return;
      window.removeEventListener("message", onReady);
      resolve(undefined);
    };
    window.addEventListener("message", onReady);
  });
  frame.src = FRAME_PATH;
  container.append(frame);
  await ready;
  const target = /** @type {Window} */ (frame.contentWindow);
  await bridge.connect(new PostMessageTransport(target, target));
  // The frame's origin is opaque: "*" is the only target origin that reaches it.
  target.postMessage({ type: "mcp-edge/app-html", html: withCsp(html, appCsp(csp)) }, "*");
  return frame;
}

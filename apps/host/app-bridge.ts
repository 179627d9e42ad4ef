// What the web console takes from the extension's host side: bundled for the browser into
// public/generated/app-bridge.js by bin/build-apps.ts (public/js/app-host.js imports it).
export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

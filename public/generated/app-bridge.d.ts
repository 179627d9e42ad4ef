// The types of app-bridge.js, the browser bundle bin/build-apps.ts makes of the extension's host side.
export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

/**
 * An MCP App of a built-in server (the `io.modelcontextprotocol/ui` extension): the `_meta` its tool
 * lists, and its `ui://` resource — `text/html;profile=mcp-app`, a CSP that reaches no other domain
 * (the script is inlined), the HTML loaded on the first read (decision 0070).
 */
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, registerAppResource } from "@modelcontextprotocol/ext-apps/server";
import type { McpServer } from "@modelcontextprotocol/server";
import type { AppView } from "../apps/app-document";

export interface BuiltInApp {
  uri: `ui://${string}`;
  view: AppView;
  title: string;
  description: string;
}

/** No connect, resource or frame domain: the app talks only to its host, and everything it needs is inline. */
const APP_RESOURCE_META = { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true } };

/**
 * The tools/list `_meta` of a tool that opens `app`: `ui.resourceUri` and, for hosts of the
 * extension's first drafts, the flat `ui/resourceUri` key (as the extension's registerAppTool does).
 * `visibility` absent: the model and the app both see the tool.
 */
export function opensApp(app: BuiltInApp): Readonly<Record<string, unknown>> {
  return { ui: { resourceUri: app.uri }, [RESOURCE_URI_META_KEY]: app.uri };
}

export function registerBuiltInApp(server: McpServer, app: BuiltInApp): void {
  registerAppResource(
    server,
    app.title,
    app.uri,
    { title: app.title, description: app.description, mimeType: RESOURCE_MIME_TYPE, _meta: APP_RESOURCE_META },
    async () => {
      const { appDocument } = await import("../apps/app-document");
      return {
        contents: [{ uri: app.uri, mimeType: RESOURCE_MIME_TYPE, text: appDocument(app.view, app.title), _meta: APP_RESOURCE_META }],
      };
    },
  );
}

// @vitest-environment happy-dom
/**
 * What an MCP App opened in the console may reach (public/js/app-policy.js, app-host.js; decision 0071,
 * docs/security.md "What an app can reach"): tools/call of its own server's or source's tools that
 * apps may call, resources/read of its own source's `ui://` URIs, nothing else — and the refusal is
 * the host's, before any request leaves the console. happy-dom stands in for the page.
 */
import { describe, expect, it } from "vitest";
import { createBridge } from "../../../public/js/app-host.js";
import { appCsp, appPolicy, appUriOf, REFUSED, visibleTo, withCsp } from "../../../public/js/app-policy.js";

const board = { name: "show_task_board", _meta: { ui: { resourceUri: "ui://tasks/task-board.html" } } };
const taskTools = [board, { name: "list_tasks" }, { name: "complete_task" }];
const onlyForTheModel = { name: "summarise", _meta: { ui: { visibility: ["model"] } } };
const onlyForTheApp = { name: "board_layout", _meta: { ui: { visibility: ["app"] } } };
const weatherView = { name: "wx__show_weather", _meta: { ui: { resourceUri: "ui://wx__weather/view.html" } } };
const gatewayTools = [
  ...taskTools,
  { name: "rag_basic" },
  { name: "gateway_add_source" },
  weatherView,
  { name: "wx__forecast" },
  { name: "wx__admin", _meta: { ui: { visibility: ["model"] } } },
  { name: "other__forecast" },
];

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("not refused");
}

describe("an app of a built-in server on its own endpoint (/mcp/tasks)", () => {
  const policy = appPolicy({ route: "/mcp/tasks", tool: board, tools: [...taskTools, onlyForTheModel, onlyForTheApp] });

  it("calls its server's tools by their names, app-only ones included", () => {
    expect(policy.toolName("complete_task")).toBe("complete_task");
    expect(policy.toolName("board_layout")).toBe("board_layout");
  });

  it("is refused a tool the endpoint does not list, or one whose visibility leaves out apps", () => {
    expect(refusal(() => policy.toolName("gateway_add_source"))).toMatchObject({ code: REFUSED });
    expect(refusal(() => policy.toolName("summarise"))).toMatchObject({ code: REFUSED, message: expect.stringContaining("visibility") });
    expect(refusal(() => policy.toolName(42))).toMatchObject({ code: REFUSED });
  });

  it("reads ui:// resources only, never the server's other resources", () => {
    expect(policy.resourceUri("ui://tasks/task-board.html")).toBe("ui://tasks/task-board.html");
    for (const uri of ["task://1", "file:///etc/passwd", "https://example.com/", "UI://tasks/x", undefined])
      expect(refusal(() => policy.resourceUri(uri))).toMatchObject({ code: REFUSED });
  });
});

describe("an app of a built-in server opened from the gateway /mcp", () => {
  const policy = appPolicy({
    route: "/mcp",
    tool: board,
    tools: gatewayTools,
    serverTools: new Set(taskTools.map((tool) => tool.name)),
  });

  it("calls only its own server's tools, never another server's, the gateway's or a source's", () => {
    expect(policy.toolName("complete_task")).toBe("complete_task");
    for (const name of ["rag_basic", "gateway_add_source", "wx__forecast"])
      expect(
        refusal(() => policy.toolName(name)),
        name,
      ).toMatchObject({ code: REFUSED });
  });

  it("reads built-in ui:// resources, never a source's", () => {
    expect(policy.resourceUri("ui://tasks/task-board.html")).toBe("ui://tasks/task-board.html");
    expect(refusal(() => policy.resourceUri("ui://wx__weather/view.html"))).toMatchObject({ code: REFUSED });
  });
});

describe("an app of a source opened from the gateway /mcp", () => {
  const policy = appPolicy({ route: "/mcp", tool: weatherView, tools: gatewayTools });

  it("names its source's tools as the source does: x is called as <slug>__x", () => {
    expect(policy.slug).toBe("wx");
    expect(policy.toolName("forecast")).toBe("wx__forecast");
  });

  it("never reaches a built-in, another source's tool, or one hidden from apps", () => {
    for (const name of ["list_tasks", "gateway_add_source", "other__forecast", "wx__forecast", "admin"])
      expect(
        refusal(() => policy.toolName(name)),
        name,
      ).toMatchObject({ code: REFUSED });
  });

  it("reads its own source's ui:// URIs only: every URI it names is read inside its source", () => {
    expect(policy.resourceUri("ui://weather/view.html")).toBe("ui://wx__weather/view.html");
    // Naming another source's gateway URI still reads inside wx (as wx's own `ui://other__weather/…`).
    expect(policy.resourceUri("ui://other__weather/view.html")).toBe("ui://wx__other__weather/view.html");
    expect(refusal(() => policy.resourceUri("demo://weather/data"))).toMatchObject({ code: REFUSED });
  });
});

describe("the host's bridge", () => {
  function recordingClient() {
    const sent: { method: string; params: unknown }[] = [];
    return {
      sent,
      request: async (method: string, params?: Record<string, unknown>) => {
        sent.push({ method, params });
        return { contents: [] };
      },
      callTool: async (name: string, args: Record<string, unknown>) => {
        sent.push({ method: "tools/call", params: { name, arguments: args } });
        return { content: [] };
      },
    };
  }
  const policy = appPolicy({ route: "/mcp", tool: weatherView, tools: gatewayTools });
  const context = {} as never;

  it("forwards an allowed call under the gateway's name, and a read of the source's ui:// URI", async () => {
    const client = recordingClient();
    const bridge = await createBridge(policy, client);
    await bridge.oncalltool?.({ name: "forecast", arguments: { city: "Oslo" } }, context);
    await bridge.onreadresource?.({ uri: "ui://weather/view.html" }, context);
    expect(client.sent).toEqual([
      { method: "tools/call", params: { name: "wx__forecast", arguments: { city: "Oslo" } } },
      { method: "resources/read", params: { uri: "ui://wx__weather/view.html" } },
    ]);
  });

  it("refuses anything else with a JSON-RPC error, and sends nothing", async () => {
    const client = recordingClient();
    const bridge = await createBridge(policy, client);
    await expect(bridge.oncalltool?.({ name: "gateway_add_source", arguments: {} }, context)).rejects.toMatchObject({ code: REFUSED });
    await expect(bridge.onreadresource?.({ uri: "task://1" }, context)).rejects.toMatchObject({ code: REFUSED });
    expect(client.sent).toEqual([]);
  });
});

describe("the app's listing and document", () => {
  it("finds the app a tool opens, by either key, and only a ui:// one", () => {
    expect(appUriOf(board)).toBe("ui://tasks/task-board.html");
    expect(appUriOf({ name: "x", _meta: { "ui/resourceUri": "ui://x/y.html" } })).toBe("ui://x/y.html");
    expect(appUriOf({ name: "x", _meta: { ui: { resourceUri: "https://example.com/app.html" } } })).toBeUndefined();
  });

  it("tells who may see a tool", () => {
    expect(visibleTo(onlyForTheApp, "model")).toBe(false);
    expect(visibleTo(onlyForTheApp, "app")).toBe(true);
    expect(visibleTo(board, "model")).toBe(true);
  });

  it("builds the app's CSP from its declared domains, closed by default, dropping anything that is not a plain origin", () => {
    expect(appCsp(undefined)).toContain("connect-src 'none'");
    expect(appCsp({})).toContain("default-src 'none'");
    const csp = appCsp({
      connectDomains: ["https://api.example.com", "https://x.com; script-src *", "'unsafe-eval'", "*"],
      resourceDomains: ["https://*.cdn.example.com", "http://insecure.example.com"],
    });
    expect(csp).toContain("connect-src https://api.example.com;");
    expect(csp).toContain("script-src 'unsafe-inline' https://*.cdn.example.com;");
    expect(csp).not.toMatch(/unsafe-eval|x\.com|insecure|connect-src[^;]*\*/);
    expect(csp).toContain("frame-src 'none'");
  });

  it("puts the CSP first in the app's document", () => {
    expect(withCsp("<!doctype html><html><head><script>1</script>", "default-src 'none'")).toBe(
      `<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><html><head><script>1</script>`,
    );
    expect(withCsp("<script>1</script>", 'a "b"')).toBe(
      `<meta http-equiv="Content-Security-Policy" content="a &quot;b&quot;"><script>1</script>`,
    );
  });
});

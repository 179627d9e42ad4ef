/**
 * An upstream's MCP App works through /mcp (decision 0068), against the official MCP Apps example
 * server (server-basic-vanillajs, stateless): its tool lists with `_meta.ui.resourceUri` (and the
 * legacy flat key) named `ui://<slug>__…`, that URI reads through /mcp as an MCP App's HTML, and its
 * tool call reaches it. And the URIs in a tool's result — resource links and embedded resources —
 * come back under their /mcp names on both serving paths (the fast path and the SDK's).
 */
import type { ContentBlock } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { connectGateway, sourceRow } from "../../helpers/gateway";
import { textOf, workerFetch } from "../../helpers/mcp";
import { rpcRequest, rpcResponse } from "../../helpers/rpc";
import { registerSource, upstreams } from "../../helpers/upstreams";
import { createUser, type TestUser } from "../../helpers/users";

const APP_MIME_TYPE = "text/html;profile=mcp-app";

describe("an upstream's MCP App through /mcp", { timeout: 60_000 }, () => {
  it("lists the tool with its ui:// resource named, reads the app's HTML and calls the tool", async () => {
    const owner = await createUser();
    const { status, body } = await registerSource(owner, upstreams().apps_example, { name: "Clock" });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(await sourceRow(body.source.id)).toMatchObject({ upstream_kind: "stateless" });
    const client = await connectGateway(owner);

    const { tools } = await client.listTools();
    const tool = tools.find((listed) => listed.name === "clock__get-time");
    const named = "ui://clock__get-time/mcp-app.html";
    expect(tool?._meta?.["ui"]).toMatchObject({ resourceUri: named });
    expect(tool?._meta?.["ui/resourceUri"]).toBe(named);

    const { resources } = await client.listResources();
    expect(resources.find((resource) => resource.uri === named)).toMatchObject({ mimeType: APP_MIME_TYPE });
    const read = await client.readResource({ uri: named });
    expect(read.contents[0]).toMatchObject({ uri: named, mimeType: APP_MIME_TYPE });
    const html = read.contents[0] && "text" in read.contents[0] ? String(read.contents[0].text) : "";
    expect(html).toMatch(/<html/i);

    const called = await client.callTool({ name: "clock__get-time", arguments: {} });
    expect(called.isError, textOf(called)).toBeFalsy();
    expect(called._meta).toMatchObject({ source: "clock" });
  });
});

/** A tools/call result's content: on the fast path a plain 2025-11-25 request (mcp/pipeline.ts routes it), else a 2026-07-28 SDK client's. */
async function contentOf(user: TestUser, path: "fast" | "sdk", name: string, args: Record<string, unknown>): Promise<ContentBlock[]> {
  if (path === "sdk") {
    const result = await (await connectGateway(user, { pin2026: true })).callTool({ name, arguments: args });
    expect(result.isError, textOf(result)).toBeFalsy();
    return result.content;
  }
  const response = await rpcResponse(
    await workerFetch(rpcRequest("/mcp", user.token, "2025-11-25", { method: "tools/call", params: { name, arguments: args } })),
  );
  const result = response.result as { isError?: boolean; content: ContentBlock[] };
  expect(result.isError, JSON.stringify(response)).toBeFalsy();
  return result.content;
}

describe("resource URIs in a tool's result", { timeout: 60_000 }, () => {
  for (const path of ["fast", "sdk"] as const) {
    it(`are named for /mcp on the ${path} path`, async () => {
      const owner = await createUser();
      await registerSource(owner, upstreams().everything_http, { name: "Linker" });
      const links = await contentOf(owner, path, "linker__get-resource-links", { count: 2 });
      const linked = links.flatMap((block) => (block.type === "resource_link" ? [block.uri] : []));
      expect(linked).toEqual(["demo://linker__resource/dynamic/blob/1", "demo://linker__resource/dynamic/text/2"]);
      // Each link reads back through /mcp.
      const read = await (await connectGateway(owner)).readResource({ uri: linked[1]! });
      expect(read.contents[0]?.uri).toBe(linked[1]);

      const reference = await contentOf(owner, path, "linker__get-resource-reference", { resourceType: "Text", resourceId: 4 });
      const embedded = reference.find((block) => block.type === "resource");
      expect(embedded?.type === "resource" && embedded.resource.uri).toBe("demo://linker__resource/dynamic/text/4");
    });
  }
});

/**
 * Where a source's URIs are named for /mcp in what reaches a client (decision 0068): tool result
 * blocks, prompt messages, read contents and a tool's MCP Apps `_meta`; what has no resource URI
 * is passed on as the same object (the common tools/call costs one scan, no copy).
 */
import { describe, expect, it } from "vitest";
import {
  LEGACY_UI_URI_KEY,
  promptResultNamed,
  readResultNamed,
  toolResultNamed,
  uiMetaNamed,
} from "../../../workers/gateway/calls/uri-rewrite";

describe("URIs named in results", () => {
  it("names resource links and embedded resources of a tool's result, and leaves text alone", () => {
    const result = {
      content: [
        { type: "text", text: "demo://r/1" },
        { type: "resource_link", uri: "demo://r/1", name: "one" },
        { type: "resource", resource: { uri: "file:///etc/x", text: "x" } },
      ],
    };
    expect(toolResultNamed("src", result).content).toEqual([
      { type: "text", text: "demo://r/1" },
      { type: "resource_link", uri: "demo://src__r/1", name: "one" },
      { type: "resource", resource: { uri: "file://src__/etc/x", text: "x" } },
    ]);
  });

  it("returns the very result when nothing in it names a resource", () => {
    const result = { content: [{ type: "text", text: "plain" }] };
    expect(toolResultNamed("src", result)).toBe(result);
  });

  it("names a prompt's embedded resource and a read's contents; leaves an unnamable URI as sent", () => {
    const prompt = { messages: [{ role: "user", content: { type: "resource", resource: { uri: "urn:isbn:1", text: "t" } } }] };
    expect(promptResultNamed("src", prompt).messages).toEqual([
      { role: "user", content: { type: "resource", resource: { uri: "urn:src__isbn:1", text: "t" } } },
    ]);
    const read = {
      contents: [
        { uri: "ui://app/view.html", text: "<html>" },
        { uri: "no scheme", text: "?" },
      ],
    };
    expect(readResultNamed("src", read).contents).toEqual([
      { uri: "ui://src__app/view.html", text: "<html>" },
      { uri: "no scheme", text: "?" },
    ]);
  });

  it("lists a tool's UI under both keys hosts read, named; nothing for a tool without one", () => {
    expect(uiMetaNamed("src", { resourceUri: "ui://app/view.html", visibility: ["model", "app"] })).toEqual({
      ui: { resourceUri: "ui://src__app/view.html", visibility: ["model", "app"] },
      [LEGACY_UI_URI_KEY]: "ui://src__app/view.html",
    });
    expect(uiMetaNamed("src", null)).toBeUndefined();
  });
});

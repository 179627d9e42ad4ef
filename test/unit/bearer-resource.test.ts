/**
 * Where an upstream OAuth token may be sent: only to a URL the resource it was issued for covers —
 * same origin, and the resource's path a prefix of the URL's on a segment boundary (RFC 8707, the
 * MCP authorization spec's canonical resource URI; the rule the SDK applies when it asks for it).
 */
import { describe, expect, it } from "vitest";
import { bearerRefusal } from "../../workers/gateway/authorization/bearer-resource";
import { resourceCovers } from "../../workers/gateway/authorization/upstream-authorization";

describe("resourceCovers", () => {
  it.each([
    ["https://mcp.example.com/mcp", "https://mcp.example.com/mcp"],
    ["https://mcp.example.com/mcp", "https://mcp.example.com/mcp/"],
    ["https://mcp.example.com/mcp", "https://mcp.example.com/mcp/sub"],
    ["https://mcp.example.com/mcp/", "https://mcp.example.com/mcp"],
    ["https://mcp.example.com", "https://mcp.example.com/anything/below"],
    ["https://mcp.example.com/mcp", "https://MCP.example.com:443/mcp?x=1#f"],
    ["http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"],
  ])("%s covers %s", (resource, url) => {
    expect(resourceCovers(resource, url)).toBe(true);
  });

  it.each([
    ["another host", "https://mcp.example.com/mcp", "https://attacker.example/mcp"],
    ["a subdomain", "https://example.com/mcp", "https://mcp.example.com/mcp"],
    ["another port", "http://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp"],
    ["another scheme", "https://mcp.example.com/mcp", "http://mcp.example.com/mcp"],
    ["a sibling path sharing the prefix", "https://mcp.example.com/mcp", "https://mcp.example.com/mcpx"],
    ["a parent path", "https://mcp.example.com/mcp/tasks", "https://mcp.example.com/mcp"],
    ["another path", "https://mcp.example.com/mcp/tasks", "https://mcp.example.com/mcp/rag"],
    ["a resource that is not a URL", "not a url", "https://mcp.example.com/mcp"],
    ["a URL that is not one", "https://mcp.example.com/mcp", "::"],
    ["a resource without an origin", "urn:example:mcp", "https://mcp.example.com/mcp"],
  ])("refuses %s", (_what, resource, url) => {
    expect(resourceCovers(resource, url)).toBe(false);
  });
});

describe("bearerRefusal", () => {
  it("says nothing for a config without an upstream OAuth token, or one whose resource covers its URL", () => {
    expect(bearerRefusal({ slug: "s", url: "https://a.example/mcp", bearerResource: undefined })).toBeUndefined();
    expect(bearerRefusal({ slug: "s", url: "https://a.example/mcp", bearerResource: "https://a.example/mcp" })).toBeUndefined();
  });

  it("names both the resource and the URL when they differ", () => {
    expect(bearerRefusal({ slug: "s", url: "https://b.example/mcp", bearerResource: "https://a.example/mcp" })).toBe(
      "the connection of source s was made for https://a.example/mcp, not for https://b.example/mcp: " +
        "connect your account again (nothing was sent)",
    );
  });
});

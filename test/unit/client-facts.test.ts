/**
 * Who called, as the tool-call audit records it (workers/mcp/client-facts.ts, decision 0060): the
 * 2026-07-28 `_meta` client info (the client's own words: control and format characters dropped,
 * cut to 100 / 40 characters), the revision from that `_meta` or the header, and the OAuth client.
 */
import { describe, expect, it } from "vitest";
import type { Principal } from "../../workers/auth/principal";
import { mcpClientFacts } from "../../workers/mcp/client-facts";

const apiToken: Principal = { user: { id: 1, name: "ada" }, scopes: new Set(), via: "api_token" };
const oauth: Principal = { ...apiToken, via: "oauth", clientId: "https://app.example/client.json" };

function post(meta: Record<string, unknown> | undefined, header?: string): { body: unknown; request: Request } {
  const params = { name: "list_tasks", arguments: {}, ...(meta ? { _meta: meta } : {}) };
  const headers: Record<string, string> = header ? { "mcp-protocol-version": header } : {};
  const request = new Request("http://localhost/mcp", { method: "POST", headers });
  return { body: { jsonrpc: "2.0", id: 1, method: "tools/call", params }, request };
}

describe("mcpClientFacts", () => {
  it("takes a 2026-07-28 request's client info and revision, and the token's OAuth client", () => {
    const { body, request } = post({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "Claude", version: "1.2.0" },
    });
    expect(mcpClientFacts(body, request, oauth)).toEqual({
      name: "Claude",
      version: "1.2.0",
      protocol_version: "2026-07-28",
      oauth_client_id: "https://app.example/client.json",
    });
  });

  it("has only the header's revision for a 2025 request, and no OAuth client for an API token", () => {
    const { body, request } = post(undefined, "2025-11-25");
    const unnamed = { name: null, version: null, protocol_version: "2025-11-25", oauth_client_id: null };
    expect(mcpClientFacts(body, request, apiToken)).toEqual(unnamed);
    expect(mcpClientFacts([body], request, apiToken)).toMatchObject({ name: null, protocol_version: "2025-11-25" });
  });

  it("drops control and format characters, cuts long text, and keeps no revision that is not a date", () => {
    const { body, request } = post(
      {
        "io.modelcontextprotocol/protocolVersion": "latest\nplease",
        "io.modelcontextprotocol/clientInfo": { name: `Evil\u0000\u202e Client\n${"x".repeat(300)}`, version: { major: 1 } },
      },
      "2025-06-18",
    );
    const facts = mcpClientFacts(body, request, apiToken);
    expect(facts.name).toBe(`Evil Client${"x".repeat(89)}`);
    expect(facts.version).toBeNull();
    expect(facts.protocol_version).toBeNull();
  });
});

/**
 * How the agent Worker's MCP requests go out (workers/agent-worker/worker-config.ts), with its real
 * MCP_EDGE binding to the main Worker beside it: MCP_URL on the main Worker's origin goes over the
 * binding with the caller's principal and no credentials at all (MCP_TOKEN is not used there); any
 * other MCP_URL goes to the network with the MCP_TOKEN secret, never over the binding.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isOwnOrigin, turnMcpAccess } from "../../workers/agent-worker/worker-config";
import type { PrincipalWire } from "../../workers/auth/principal-wire";
import { createUser } from "../helpers/users";

type Settings = Pick<AgentEnv, "SELF_ORIGIN" | "MCP_URL" | "MCP_TOKEN" | "MCP_EDGE">;

function settings(values: Partial<Settings>): Settings {
  return { SELF_ORIGIN: env.SELF_ORIGIN, MCP_URL: env.MCP_URL, MCP_TOKEN: undefined, MCP_EDGE: env.MCP_EDGE, ...values };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mcp-access-test", version: "1" } },
};

describe("the agent's MCP access per turn", () => {
  it("MCP_URL on SELF_ORIGIN: the main Worker answers over the binding for the principal alone — no Authorization is sent, MCP_TOKEN is not used", async () => {
    const user = await createUser();
    const principal: PrincipalWire = { user: { id: user.id, name: user.name }, scopes: ["chat", "tasks:read"], via: "api_token" };
    const access = turnMcpAccess(settings({ MCP_TOKEN: "secret" }), principal);
    expect(isOwnOrigin(settings({}))).toBe(true);
    expect(access.authorization).toBeUndefined();
    const res = await access.fetch!(
      new Request(env.MCP_URL, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(INITIALIZE),
      }),
    );
    expect(res.status).toBe(200);
  });

  it("an Authorization header sent anyway counts for nothing there: the principal decides", async () => {
    const user = await createUser();
    // A principal whose OAuth token was for /api alone: the main Worker refuses it at /mcp, whatever else comes along.
    const principal: PrincipalWire = {
      user: { id: user.id, name: user.name },
      scopes: ["chat", "tasks:read"],
      via: "oauth",
      audience: "http://localhost/api",
    };
    const res = await turnMcpAccess(settings({}), principal).fetch!(
      new Request(env.MCP_URL, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${user.token}`,
        },
        body: JSON.stringify(INITIALIZE),
      }),
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      error: {
        code: "unauthorized",
        message: expect.stringMatching(/issued for http:\/\/localhost\/api; it is not accepted at http:\/\/localhost\/mcp/),
      },
    });
  });

  it("a foreign MCP_URL: the network with the MCP_TOKEN secret when set, else nothing — never the binding", () => {
    const principal: PrincipalWire = { user: { id: 1, name: "ada" }, scopes: ["chat"], via: "api_token" };
    const foreign = settings({
      SELF_ORIGIN: "https://edge.example.workers.dev",
      MCP_URL: "https://tools.example.com/mcp",
      MCP_TOKEN: "secret",
    });
    expect(isOwnOrigin(foreign)).toBe(false);
    expect(turnMcpAccess(foreign, principal)).toEqual({ fetch: undefined, authorization: "Bearer secret" });
    expect(turnMcpAccess(settings({ ...foreign, MCP_TOKEN: "" }), principal)).toEqual({ fetch: undefined, authorization: undefined });
    // Without SELF_ORIGIN nothing counts as the main Worker's origin.
    expect(isOwnOrigin(settings({ SELF_ORIGIN: "", MCP_URL: "https://edge.example.workers.dev/mcp" }))).toBe(false);
    // Same host, other port: another origin.
    expect(isOwnOrigin(settings({ SELF_ORIGIN: "http://localhost", MCP_URL: "http://localhost:8080/mcp" }))).toBe(false);
  });
});

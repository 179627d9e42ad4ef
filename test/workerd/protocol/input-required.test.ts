/**
 * Elicitation and sampling on a stateless endpoint. 2026-07-28 has them as `inputRequired` results the
 * client fulfils and retries; the stateless 2025 lane cannot send a server-to-client request at all.
 * This is why the conformance suite (whose client speaks only 2025 revisions) lists the elicitation
 * and sampling scenarios in test/conformance/expected-failures.yml.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { conformanceServer } from "../../conformance/fixture.server";
import { type Era, eraOptions, textOf } from "../../helpers/mcp";
import { createUser, type TestUser } from "../../helpers/users";
import { appWith } from "../../helpers/rpc";

let user: TestUser;
beforeAll(async () => {
  user = await createUser();
});

/** A real client on the conformance fixture, served by the production app in-process. */
async function fixtureClient(era: Era): Promise<{ client: Client; asked: string[] }> {
  const fetchApp = appWith({}, [conformanceServer]);
  const client = new Client(
    { name: "input-required-test", version: "1.0.0" },
    {
      capabilities: { elicitation: {}, sampling: {} },
      ...eraOptions(era),
    },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.method);
    return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
  });
  client.setRequestHandler("sampling/createMessage", (request) => {
    asked.push(request.method);
    return { role: "assistant", content: { type: "text", text: "sampled reply" }, model: "test-model", stopReason: "endTurn" };
  });
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp/conformance"), {
    fetch: (input, init) => fetchApp(new Request(input, init), createExecutionContext()),
    requestInit: { headers: user.headers },
  });
  await client.connect(transport);
  return { client, asked };
}

describe("2026-07-28: inputRequired round trips", () => {
  it("elicits from the user and finishes the tool call on the retry", async () => {
    const { client, asked } = await fixtureClient("2026-07-28");
    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
    expect(result.isError).toBeFalsy();
    expect(asked).toEqual(["elicitation/create"]);
    expect(textOf(result)).toContain("ada@example.com");
    await client.close();
  });

  it("samples from the client's model and finishes the tool call on the retry", async () => {
    const { client, asked } = await fixtureClient("2026-07-28");
    const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "Say hi" } });
    expect(result.isError).toBeFalsy();
    expect(asked).toEqual(["sampling/createMessage"]);
    expect(textOf(result)).toContain("sampled reply");
    await client.close();
  });
});

describe("2025-11-25 (stateless legacy lane)", () => {
  it("cannot reach the client: the tool says so in an isError result", async () => {
    const { client, asked } = await fixtureClient("2025-11-25");
    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
    expect(result.isError).toBe(true);
    expect(asked).toEqual([]);
    expect(textOf(result)).toContain("per-request legacy serving cannot receive server-to-client requests");
    await client.close();
  });
});

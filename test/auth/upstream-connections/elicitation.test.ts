/**
 * A call whose owner must connect, offered as a URL-mode elicitation to clients that take one:
 * 2026-07-28 `inputRequired` with an embedded URL elicitation (the SDK client opens it and retries),
 * 2025-11-25 the -32042 error when the request declares URL elicitation; every other client gets the
 * typed authorization_required result with the same link.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { textOf, workerFetch } from "../../helpers/mcp";
import { ORIGIN } from "../../helpers/oauth";
import { connectSource, publishGatewayClientDocument, registerOAuthTasksSource } from "../../helpers/upstream-oauth";
import { api } from "../../helpers/rest";
import { createUser, type TestUser } from "../../helpers/users";

const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

/** A connected-then-disconnected source: its tools are listed, its calls need the owner to connect. */
async function disconnectedSource(owner: TestUser): Promise<{ id: number; slug: string }> {
  const { source } = await registerOAuthTasksSource(owner);
  await connectSource(owner, source.id);
  await api(owner, "DELETE", `/api/sources/${source.id}/authorization`);
  return source;
}

async function modernClient(
  owner: TestUser,
  capabilities: Record<string, unknown>,
): Promise<{ client: Client; asked: Record<string, unknown>[] }> {
  const client = new Client(
    { name: "elicitation-test", version: "1.0.0" },
    { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const asked: Record<string, unknown>[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params as Record<string, unknown>);
    return { action: "accept" };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), { fetch: workerFetch, requestInit: { headers: owner.headers } }),
  );
  return { client, asked };
}

function legacyCall(owner: TestUser, name: string, meta?: Record<string, unknown>): Promise<Response> {
  return workerFetch(`${ORIGIN}/mcp`, {
    method: "POST",
    headers: {
      ...owner.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) },
    }),
  });
}

async function jsonRpcOf(res: Response): Promise<{
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { elicitations: { mode: string; url: string }[] } };
}> {
  const text = await res.text();
  const data = text.startsWith("{") ? text : (text.split("\n").find((line) => line.startsWith("data: ")) ?? "data: {}").slice(6);
  return JSON.parse(data);
}

describe("URL elicitation of the connect link", () => {
  it("2026-07-28: a client declaring elicitation.url is asked to open the link, and gets the typed error if the user still did not connect", async () => {
    const owner = await createUser();
    const source = await disconnectedSource(owner);
    const { client, asked } = await modernClient(owner, { elicitation: { url: {} } });
    const result = await client.callTool({ name: `${source.slug}__list_tasks`, arguments: {} });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: "url", url: `${ORIGIN}/oauth/upstream/connect?source_id=${source.id}` });
    expect(result.isError).toBe(true);
    expect((result._meta as Record<string, unknown>)["error_type"]).toBe("authorization_required");
    await client.close();
  });

  it("2026-07-28: a client without URL elicitation gets the typed result with the link, never an elicitation", async () => {
    const owner = await createUser();
    const source = await disconnectedSource(owner);
    const { client, asked } = await modernClient(owner, { elicitation: { form: {} } });
    const result = await client.callTool({ name: `${source.slug}__list_tasks`, arguments: {} });
    expect(asked).toEqual([]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`/oauth/upstream/connect?source_id=${source.id}`);
    await client.close();
  });

  it("2025-11-25: -32042 with the link when the request declares URL elicitation; the typed result otherwise", async () => {
    const owner = await createUser();
    const source = await disconnectedSource(owner);
    const name = `${source.slug}__list_tasks`;
    const declared = await jsonRpcOf(await legacyCall(owner, name, { [CLIENT_CAPABILITIES]: { elicitation: { url: {} } } }));
    expect(declared.error?.code).toBe(-32042);
    expect(declared.error?.data?.elicitations[0]).toMatchObject({
      mode: "url",
      url: `${ORIGIN}/oauth/upstream/connect?source_id=${source.id}`,
    });

    const plain = await jsonRpcOf(await legacyCall(owner, name));
    expect(plain.error).toBeUndefined();
    expect(plain.result?.["isError"]).toBe(true);
    expect(JSON.stringify(plain.result)).toContain("authorization_required");
  });
});

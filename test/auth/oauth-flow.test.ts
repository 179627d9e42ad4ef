/**
 * The whole flow as MCP clients run it, with the official client's OAuth support: a Client ID
 * Metadata Document client and a dynamically registered client, in the 2025-11-25 and 2026-07-28
 * eras, each ending in a tool call that works with the access token it got.
 */
import { describe, expect, it } from "vitest";
import { callOk, type Era } from "../helpers/mcp";
import { connectWithOAuth, publishClientMetadata, TestOAuthProvider, LOOPBACK_REDIRECT } from "../helpers/oauth";
import { createUser } from "../helpers/users";

const ERAS: readonly Era[] = ["2025-11-25", "2026-07-28"];

describe.each(ERAS)("OAuth sign-in from an MCP client (%s)", (era) => {
  it("a dynamically registered client signs in, consents and calls list_tasks on /mcp/tasks", async () => {
    const user = await createUser();
    const provider = new TestOAuthProvider({ name: `DCR client ${era}` });
    const client = await connectWithOAuth("/mcp/tasks", user, provider, era);
    const listed = await callOk<{ tasks: unknown[] }>(client, "list_tasks");
    expect(listed.tasks).toEqual([]);
    // The 401 named every scope of the server's tools; the client asked for them and, with the
    // consent page's defaults, got them: it can write at once (decision 0054).
    expect(provider.tokens()?.scope).toBe("tasks:read tasks:write");
    expect((await callOk<{ task: { title: string } }>(client, "add_task", { title: "written after the first sign-in" })).task.title).toBe(
      "written after the first sign-in",
    );
    await client.close();
  });

  it("a Client ID Metadata Document client signs in and calls list_tasks", async () => {
    const user = await createUser();
    const clientId = await publishClientMetadata(`clients/flow-${era}-${crypto.randomUUID()}.json`, {
      client_name: "Metadata document client",
      redirect_uris: [LOOPBACK_REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    const provider = new TestOAuthProvider({ name: "Metadata document client", clientMetadataUrl: clientId });
    const client = await connectWithOAuth("/mcp/tasks", user, provider, era);
    const listed = await callOk<{ tasks: unknown[] }>(client, "list_tasks");
    expect(listed.tasks).toEqual([]);
    expect(provider.clientInformation()?.client_id).toBe(clientId);
    await client.close();
  });
});

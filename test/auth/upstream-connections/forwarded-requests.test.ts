/**
 * An OAuth-protected source's prompts and resources through /mcp (decision 0068): forwarded with
 * the owner's own upstream token, as its tools are; without a usable token the answer is the
 * `authorization_required` error naming how to connect — never the upstream's 401, never a 500.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import {
  connectedTasksSource,
  expireAccessToken,
  publishGatewayClientDocument,
  registerOAuthTasksSource,
} from "../../helpers/upstream-oauth";
import { createUser } from "../../helpers/users";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

describe("an OAuth source's prompts and resources", { timeout: 60_000 }, () => {
  it("are refused with authorization_required until the owner connects", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const client = await connectGateway(owner);
    await expect(client.getPrompt({ name: `${source.slug}__review_tasks`, arguments: {} })).rejects.toThrow(/authorization_required/);
    // The lists leave the source out and still answer.
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).not.toContain(`${source.slug}__review_tasks`);
  });

  it("are served with the owner's token once connected, and after it expired (refreshed)", async () => {
    const { owner, source } = await connectedTasksSource();
    const client = await connectGateway(owner);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain(`${source.slug}__review_tasks`);
    const got = await client.getPrompt({ name: `${source.slug}__review_tasks`, arguments: { status: "pending" } });
    expect(got.messages.length).toBeGreaterThan(0);
    await expireAccessToken(source.id);
    const again = await client.getPrompt({ name: `${source.slug}__review_tasks`, arguments: {} });
    expect(again.messages.length).toBeGreaterThan(0);
  });
});

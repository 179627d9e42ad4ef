/**
 * The operation budgets of the gateway's calls that reach an upstream source: the fixture server's
 * stateless `echo` (test/upstreams/fixture-server.ts), registered over REST as a person does.
 * This file is in the upstreams project (test/with-upstreams/), which starts that server.
 */
import { describe, expect, it } from "vitest";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { createUser, type TestUser } from "../../helpers/users";
import { coldThenWarm, countedMcp, expectBudget } from "../../workerd/capacity/measure";

async function userWithEchoSource(): Promise<{ user: TestUser; slug: string }> {
  const user = await createUser();
  const { status, body } = await registerSource(user, fixtureUrl("echo"), { name: "Echo" });
  expect(status).toBe(201);
  return { user, slug: body.source.slug };
}

describe("operation budgets: the gateway and an upstream source", () => {
  it("tools/call of a source's tool on /mcp", async () => {
    const { user, slug } = await userWithEchoSource();
    const call = () => countedMcp("/mcp", user.token, "tools/call", { name: `${slug}__echo`, arguments: { word: "hello" } });
    expectBudget("gateway_upstream_call", await coldThenWarm(call));
  });

  it("tools/list on /mcp", async () => {
    const { user } = await userWithEchoSource();
    expectBudget("gateway_tools_list", await coldThenWarm(() => countedMcp("/mcp", user.token, "tools/list")));
  });
});

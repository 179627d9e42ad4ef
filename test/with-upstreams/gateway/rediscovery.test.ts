/**
 * Rediscovery: stable aliases for renamed upstream tools and clash reporting (pure rules, then
 * end to end against a real upstream whose tool list changes), and the rediscovery interval.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { planAliases } from "../../../workers/gateway/sources/aliases";
import { DEFAULT_REDISCOVERY_MINUTES, rediscoveryIntervalMs } from "../../../workers/gateway/discovery/rediscovery-timing";
import { connectGateway, registerTasksSource, type SourceDetailBody } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { toolNames } from "../../helpers/upstreams";
import { countRows } from "../../helpers/db";
import { createUser } from "../../helpers/users";

const schema = (prop: string) => ({ type: "object", properties: { [prop]: { type: "string" } } });
const tool = (name: string, description = `does ${name}`, prop = "q") => ({ name, description, inputSchema: schema(prop) });
const known = (name: string, alias: string, description = `does ${name}`, prop = "q") => ({ ...tool(name, description, prop), alias });

describe("alias rules (planAliases)", () => {
  it("keeps aliases by name and names new tools after themselves, suffixed only against current tools", () => {
    const plan = planAliases(
      "s",
      [known("a", "a"), known("b c", "b_c")],
      [],
      [tool("a"), tool("b c"), tool("b_c", "other", "x"), tool("new")],
    );
    expect(Object.fromEntries(plan.primary)).toEqual({ a: "a", "b c": "b_c", b_c: "b_c_2", new: "new" });
    expect(plan.extra).toEqual([]);
    expect(plan.warnings).toEqual([]);
  });

  it("treats a vanished and an appeared tool with the same description and schema as a rename", () => {
    const plan = planAliases(
      "s",
      [known("search", "search", "Find things"), known("keep", "keep")],
      [],
      [tool("find", "Find things"), tool("keep")],
    );
    expect(plan.primary.get("find")).toBe("find");
    expect(plan.extra).toEqual([{ alias: "search", toolName: "find" }]);
    expect(plan.renamed).toEqual([{ from: "search", to: "find", oldName: "search", newName: "find" }]);
    // A second rename carries the older alias along; key order in schemas does not matter.
    const again = planAliases("s", [known("find", "find", "Find things")], plan.extra, [
      { name: "lookup", description: "Find things", inputSchema: { properties: { q: { type: "string" } }, type: "object" } },
    ]);
    expect(again.extra).toEqual(
      expect.arrayContaining([
        { alias: "search", toolName: "lookup" },
        { alias: "find", toolName: "lookup" },
      ]),
    );
  });

  it("does not guess when the pairing is ambiguous, and drops aliases of tools that are gone", () => {
    const plan = planAliases(
      "s",
      [known("x1", "x1", "same"), known("x2", "x2", "same")],
      [{ alias: "old", toolName: "x1" }],
      [tool("y1", "same"), tool("y2", "same")],
    );
    expect(plan.extra).toEqual([]);
    expect(plan.renamed).toEqual([]);
  });

  it("never lets an alias shadow a current tool: the clash is not created and is reported", () => {
    // `a` was renamed to `b`, and a different tool now sanitises to `a`'s alias.
    const plan = planAliases("src", [known("a", "a", "Alpha")], [], [tool("b", "Alpha"), tool("a!", "another", "z")]);
    expect(plan.primary.get("a!")).toBe("a_");
    const clash = planAliases("src", [known("a", "a_", "Alpha")], [], [tool("b", "Alpha"), tool("a!", "another", "z")]);
    expect(clash.extra).toEqual([]);
    expect(clash.warnings).toEqual(["alias src__a_ (a renamed to b) clashes with the tool a! of the same source; not created"]);
    // An older alias is dropped, with a warning, once the upstream has a tool of that name again.
    const back = planAliases(
      "src",
      [known("b", "b", "Alpha")],
      [{ alias: "a", toolName: "b" }],
      [tool("b", "Alpha"), tool("a", "new a", "y")],
    );
    expect(back.extra).toEqual([]);
    expect(back.warnings[0]).toContain("alias src__a (an older name of b) clashes with the tool a");
  });
});

describe("renamed tools end to end", { timeout: 60_000 }, () => {
  // The upstream is the upstream Worker's /mcp/tasks. Its tools do not change, so the inventory the
  // last discovery stored is rewritten in D1 to what it would hold had the upstream listed add_task
  // as create_task then: to the next discovery, add_task (same description and schema) is a rename.
  // (A source on another user's /mcp did this before the gateway stopped being a source of itself.)
  it("keeps the old name callable as an alias, lists the new one, and reports a later clash", async () => {
    const owner = await createUser();
    const upstreamUser = await createUser();
    const { body: outer } = await registerTasksSource(owner, upstreamUser, { name: "Outer" });
    expect(outer.source.last_discovery_error).toBeNull();
    const id = outer.source.id;
    await env.DB.prepare("UPDATE source_tools SET name = 'create_task', alias = 'create_task' WHERE source_id = ? AND name = 'add_task'")
      .bind(id)
      .run();

    const refreshed = await api<SourceDetailBody>(owner, "POST", `/api/sources/${id}/refresh`);
    expect(refreshed.body.source.warnings).toEqual([]);
    const renamed = refreshed.body.tools.find((t) => t.name === "add_task");
    expect(renamed).toMatchObject({ gateway_name: "outer__add_task", aliases: ["outer__create_task"] });
    expect(refreshed.body.tools.some((t) => t.name === "create_task")).toBe(false);

    const client = await connectGateway(owner);
    const names = await toolNames(client);
    expect(names).toContain("outer__add_task");
    expect(names).not.toContain("outer__create_task");
    const viaAlias = await client.callTool({ name: "outer__create_task", arguments: { title: "through the old name" } });
    expect(viaAlias.isError, textOf(viaAlias)).toBeFalsy();
    expect(await countRows("tasks", upstreamUser.id)).toBe(1);

    // Hiding the tool by its old name hides the tool itself.
    const hidden = await api(owner, "PUT", "/api/gateway/hidden-tools/outer__create_task");
    expect(hidden.body).toMatchObject({ tool: { name: "outer__add_task" } });
    await expect((await connectGateway(owner)).callTool({ name: "outer__create_task", arguments: { title: "x" } })).rejects.toThrow(
      /not found/,
    );
    await api(owner, "DELETE", "/api/gateway/hidden-tools/outer__add_task");

    // As if list_tasks had been renamed add_task earlier (its old name kept as an alias) and the
    // upstream now lists a real list_tasks again: the alias would shadow it, so it goes, with a warning.
    await env.DB.batch([
      env.DB.prepare("UPDATE source_tool_aliases SET alias = 'list_tasks' WHERE source_id = ? AND alias = 'create_task'").bind(id),
      env.DB.prepare("DELETE FROM source_tools WHERE source_id = ? AND name = 'list_tasks'").bind(id),
    ]);
    const clash = await api<SourceDetailBody>(owner, "POST", `/api/sources/${id}/refresh`);
    expect(clash.body.source.warnings).toEqual([
      "alias outer__list_tasks (an older name of add_task) clashes with the tool list_tasks of the same source; not created",
    ]);
    expect(clash.body.tools.find((t) => t.name === "list_tasks")?.gateway_name).toBe("outer__list_tasks");
    expect(clash.body.tools.find((t) => t.name === "add_task")?.aliases).toEqual([]);
  });
});

describe("the rediscovery interval", () => {
  const MINUTE = 60_000;

  it("reads GATEWAY_REDISCOVERY_MINUTES, falling back to the default", () => {
    expect(rediscoveryIntervalMs(undefined)).toBe(DEFAULT_REDISCOVERY_MINUTES * MINUTE);
    expect(rediscoveryIntervalMs("5")).toBe(5 * MINUTE);
    expect(rediscoveryIntervalMs("0.5")).toBe(30_000);
    for (const bad of ["", "0", "-3", "soon"]) expect(rediscoveryIntervalMs(bad), bad).toBe(DEFAULT_REDISCOVERY_MINUTES * MINUTE);
  });
});

// When and how a source is rediscovered on its own — its alarm, failures backing off, the
// upstream's cache hint, the cron re-arming missing alarms — is test/with-upstreams/gateway/rediscovery-alarm.test.ts.

/**
 * Finding 6, the inventory half (decision 0050), against hostile upstreams: one listing 50,000
 * tools (/flood/mcp: refused, naming the count, the limit and its setting), one with a 5 MB
 * description and a 500-character title (/huge/mcp: shortened, with warnings naming the settings),
 * and one whose 600 tools take about 2.4 MB (/bulky/mcp: a user's second such source would pass
 * the bytes their sources may list, and is refused naming the limit; the first stays listed).
 */
import { describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import { api } from "../../helpers/rest";
import { fixtureUrl, registerSource, toolNames } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

interface Detail {
  source: { id: number; slug: string; tool_count: number; last_discovery_error: string | null; warnings: string[] };
  tools: { name: string; title: string | null; description: string; warnings: string[] }[];
}

describe("bounds on an upstream's inventory (finding 6)", { timeout: 120_000 }, () => {
  it("refuses a source listing 50,000 tools, naming the count, the limit and its setting; nothing is listed", async () => {
    const owner = await createUser();
    const { status, body } = await registerSource(owner, fixtureUrl("flood"), { name: "Flood" });
    expect(status).toBe(201);
    expect(body.source.last_discovery_error).toBe(
      "protocol: tools/list: the upstream lists 50,000 tools; a source may have at most 1,000 (GATEWAY_MAX_TOOLS_PER_SOURCE)",
    );
    expect(body.source.tool_count).toBe(0);
    const client = await connectGateway(owner);
    expect((await toolNames(client)).filter((name) => name.startsWith("flood__"))).toEqual([]);
    await client.close();
  });

  it("shortens a 5 MB description and a 500-character title, and says so naming the settings", async () => {
    const owner = await createUser();
    const { body } = await registerSource(owner, fixtureUrl("huge"), { name: "Huge" });
    expect(body.source.last_discovery_error).toBeNull();
    const detail = await api<Detail>(owner, "GET", `/api/sources/${body.source.id}`);
    const [tool] = detail.body.tools;
    expect(tool!.description).toBe(`${"d".repeat(4_095)}…`);
    expect(tool!.title).toBe(`${"T".repeat(119)}…`);
    expect(tool!.warnings).toEqual([
      "title: shortened from 500 to 120 characters (GATEWAY_MAX_TOOL_TITLE_CHARS)",
      "description: shortened from 5,242,880 to 4,096 characters (GATEWAY_MAX_TOOL_DESCRIPTION_CHARS)",
    ]);
    expect(detail.body.source.warnings).toContain("1 of its tools had text removed or shortened; each tool's warnings say what");

    const client = await connectGateway(owner);
    const listed = (await client.listTools()).tools.find((t) => t.name === "huge__huge")!;
    expect(listed.description).toHaveLength(4_096);
    expect(listed.title).toBe(`${"T".repeat(119)}… (huge)`);
    await client.close();
  });

  it("refuses a discovery that would take a user's listed bytes past their limit, and leaves what they had", async () => {
    const owner = await createUser();
    const first = await registerSource(owner, fixtureUrl("bulky"), { name: "Bulky One" });
    expect(first.body.source.last_discovery_error).toBeNull();
    expect(first.body.source.tool_count).toBe(600);

    const second = await registerSource(owner, fixtureUrl("bulky"), { name: "Bulky Two" });
    expect(second.status).toBe(201);
    const refusal = new RegExp(
      "^limit_exceeded: the tools of bulky_two take [\\d,]+ bytes; with the [\\d,]+ bytes of your other sources' tools " +
        "that passes the 4,194,304 bytes your sources may list \\(GATEWAY_MAX_LISTED_BYTES_PER_USER\\)",
    );
    expect(second.body.source.last_discovery_error).toMatch(refusal);
    expect(second.body.source.tool_count).toBe(0);

    // The first source keeps its tools, and its own refresh is not counted twice.
    const refreshed = await api<Detail>(owner, "POST", `/api/sources/${first.body.source.id}/refresh`);
    expect(refreshed.body.source.last_discovery_error).toBeNull();
    const client = await connectGateway(owner);
    const names = await toolNames(client);
    expect(names.filter((name) => name.startsWith("bulky_one__"))).toHaveLength(600);
    expect(names.filter((name) => name.startsWith("bulky_two__"))).toEqual([]);
    await client.close();

    // The limit is each user's: another user's sources do not count.
    const other = await createUser();
    expect((await registerSource(other, fixtureUrl("bulky"), { name: "Bulky One" })).body.source.last_discovery_error).toBeNull();
  });
});

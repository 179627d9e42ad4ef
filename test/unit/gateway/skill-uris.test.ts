/**
 * Where a source's skill lives on /mcp (sources/skill-uris.ts, decision 0072): the slug as a path
 * segment of its own, so the skill's name — the last segment — and so its entry stay valid.
 */
import { describe, expect, it } from "vitest";
import { gatewaySkillUri, splitGatewaySkillUri } from "../../../workers/gateway/sources/skill-uris";

const CASES: readonly [string, string][] = [
  ["skill://git-workflow/SKILL.md", "skill://docs__/git-workflow/SKILL.md"],
  ["skill://git-workflow/references/COMMITS.md", "skill://docs__/git-workflow/references/COMMITS.md"],
  ["skill://acme/billing/refunds/SKILL.md", "skill://docs__/acme/billing/refunds/SKILL.md"],
  ["skill:///odd/SKILL.md", "skill://docs__//odd/SKILL.md"],
];

describe("skill URIs on /mcp", () => {
  it.each(CASES)("%s ⇄ %s", (upstream, gateway) => {
    expect(gatewaySkillUri("docs", upstream)).toBe(gateway);
    expect(splitGatewaySkillUri(gateway)).toEqual({ slug: "docs", uri: upstream });
  });

  it("keeps the last segment — the skill's name — of an unprefixed skill", () => {
    const uri = gatewaySkillUri("my_docs", "skill://git-workflow/SKILL.md")!;
    expect(new URL(uri).pathname.split("/").at(-2)).toBe("git-workflow");
  });

  it("names only skill:// URIs", () => {
    expect(gatewaySkillUri("docs", "file:///etc/x")).toBeUndefined();
    expect(gatewaySkillUri("docs", "skill://")).toBeUndefined();
  });

  it.each([
    "skill://using-task-tools/SKILL.md",
    "skill://a/b__/SKILL.md",
    "skill://__/x/SKILL.md",
    "skill://docs__/",
    "file://docs__/etc/x",
    "skill://docs__x/SKILL.md",
  ])("%s is not a source's skill URI", (uri) => {
    expect(splitGatewaySkillUri(uri)).toBeUndefined();
  });
});

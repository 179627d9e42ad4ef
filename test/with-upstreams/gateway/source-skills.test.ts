/**
 * Sources' skills through /mcp (decision 0072), from a real upstream: the fixture's /skills/mcp,
 * an SDK server serving skills with the SDK's own skills extension. Read with the SDK's host-side
 * SkillsClient, which refuses an entry that breaks the extension's rules and checks every file
 * against the entry's digest and frontmatter — so a rewrite that renamed a skill or changed a file
 * would fail here. A skill of another user's source, or of a disabled or hidden one, is not found.
 */
import type { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { describe, expect, it } from "vitest";
import { BREAKER_THRESHOLD } from "../../../workers/gateway/calls/breaker";
import { connectTo, type Era } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import type { SourceDetailBody } from "../../helpers/gateway";
import { fixtureUrl, registerSource, upstreams } from "../../helpers/upstreams";
import { createUser, type TestUser, withScopedToken } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

const OWN = ["skill://choosing-a-rag-pipeline/SKILL.md", "skill://using-task-tools/SKILL.md"];

async function skillsSource(owner: TestUser): Promise<{ slug: string; id: number }> {
  const slugPart = crypto.randomUUID().slice(0, 6);
  const { status, body } = await registerSource(owner, fixtureUrl("skills"), { name: `Skills ${slugPart}` });
  expect(status, JSON.stringify(body)).toBe(201);
  expect(body.source.last_discovery_error).toBeNull();
  return { slug: `skills_${slugPart}`, id: body.source.id };
}

async function withGateway<T>(user: TestUser, era: Era, use: (client: Client, host: SkillsClient) => Promise<T>): Promise<T> {
  const client = await connectTo("/mcp", user.token, { era });
  try {
    return await use(client, new SkillsClient(client));
  } finally {
    await client.close();
  }
}

describe("sources' skills on /mcp", { timeout: 60_000 }, () => {
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    it(`lists a source's skills under skill://<slug>__/ and reads every file verified (${era})`, async () => {
      const owner = await createUser();
      const { slug } = await skillsSource(owner);
      await withGateway(owner, era, async (_client, host) => {
        const listing = await host.list();
        expect(listing.invalid).toEqual([]);
        const uris = listing.skills.map((skill) => skill.uri).sort();
        expect(uris).toEqual([...OWN, `skill://${slug}__/acme/billing/refunds/SKILL.md`, `skill://${slug}__/git-workflow/SKILL.md`].sort());
        const git = listing.skills.find((skill) => skill.uri === `skill://${slug}__/git-workflow/SKILL.md`)!;
        expect(git.frontmatter.name).toBe("git-workflow");
        expect(git._meta).toEqual({ "mcp-edge/source": slug });
        expect(git.resources !== "dynamic" && git.resources.map((file) => file.uri)).toEqual([
          `skill://${slug}__/git-workflow/SKILL.md`,
          `skill://${slug}__/git-workflow/references/COMMITS.md`,
        ]);

        const manifest = await host.read(git);
        expect(manifest).toMatchObject({ verified: true, uri: `skill://${slug}__/git-workflow/SKILL.md` });
        expect(manifest.body).toContain("Branch from main");
        const reference = await host.read(git, "references/COMMITS.md");
        expect(reference.verified).toBe(true);
        expect(reference.text).toContain("One change per commit");

        const refunds = await host.get(`skill://${slug}__/acme/billing/refunds/SKILL.md`);
        expect(refunds.skill.frontmatter).toMatchObject({ name: "refunds" });
        expect((await host.read(refunds.skill)).verified).toBe(true);
      });
    });
  }

  it("answers a skill of another user's source as not found, and never lists it", async () => {
    const owner = await createUser();
    const { slug } = await skillsSource(owner);
    const stranger = await createUser();
    await withGateway(stranger, "2026-07-28", async (client, host) => {
      const { skills } = await host.list();
      expect(skills.map((skill) => skill.uri)).toEqual(OWN);
      await expect(host.get(`skill://${slug}__/git-workflow/SKILL.md`)).rejects.toThrow(/No skill is served/);
      await expect(client.readResource({ uri: `skill://${slug}__/git-workflow/SKILL.md` })).rejects.toThrow(/not found/i);
    });
  });

  it("leaves out a disabled source's skills and a hidden one's, and finds neither", async () => {
    const owner = await createUser();
    const disabled = await skillsSource(owner);
    const hidden = await skillsSource(owner);
    await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${disabled.id}`, { body: { enabled: false } });
    await api<SourceDetailBody>(owner, "PATCH", `/api/sources/${hidden.id}`, { body: { hidden: true } });
    await withGateway(owner, "2026-07-28", async (client, host) => {
      expect((await host.list()).skills.map((skill) => skill.uri)).toEqual(OWN);
      for (const { slug } of [disabled, hidden]) {
        await expect(host.get(`skill://${slug}__/git-workflow/SKILL.md`)).rejects.toThrow(/No skill is served/);
        await expect(client.readResource({ uri: `skill://${slug}__/git-workflow/SKILL.md` })).rejects.toThrow(/not found/i);
      }
    });
  });

  it("serves a token without gateway:read the built-ins' skills only", async () => {
    const owner = await createUser();
    const { slug } = await skillsSource(owner);
    const narrow = await withScopedToken(owner, ["tasks:read"]);
    await withGateway(narrow, "2026-07-28", async (_client, host) => {
      expect((await host.list()).skills.map((skill) => skill.uri)).toEqual(OWN);
      await expect(host.get(`skill://${slug}__/git-workflow/SKILL.md`)).rejects.toThrow(/No skill is served/);
    });
  });

  it("lists the skills of the sources that serve them beside sources that serve none (server-everything, a stateless fixture)", async () => {
    const owner = await createUser();
    const { slug } = await skillsSource(owner);
    for (const url of [upstreams().everything_http, fixtureUrl("echo")]) {
      const { status, body } = await registerSource(owner, url);
      expect(status, JSON.stringify(body)).toBe(201);
    }
    await withGateway(owner, "2025-11-25", async (_client, host) => {
      const { skills, invalid } = await host.list();
      expect(invalid).toEqual([]);
      expect(skills.filter((skill) => !OWN.includes(skill.uri)).map((skill) => skill.uri)).toEqual([
        `skill://${slug}__/acme/billing/refunds/SKILL.md`,
        `skill://${slug}__/git-workflow/SKILL.md`,
      ]);
    });
  });

  it("keeps listing when a source fails, and stops asking it once its circuit breaker opens", async () => {
    const owner = await createUser();
    const failing = await skillsSource(owner);
    const healthy = await skillsSource(owner);
    // A 404 to every MCP request: a connection failure, as a source that went away.
    await api(owner, "PATCH", `/api/sources/${failing.id}`, { body: { url: `${UPSTREAM_ORIGIN}/no-such-mcp-endpoint` } });
    await withGateway(owner, "2026-07-28", async (_client, host) => {
      for (let i = 0; i < BREAKER_THRESHOLD; i++) {
        const uris = (await host.list()).skills.map((skill) => skill.uri);
        expect(uris).toContain(`skill://${healthy.slug}__/git-workflow/SKILL.md`);
        expect(uris.some((uri) => uri.startsWith(`skill://${failing.slug}__/`))).toBe(false);
      }
      await expect(host.get(`skill://${failing.slug}__/git-workflow/SKILL.md`)).rejects.toThrow(/circuit breaker is open/);
    });
  });
});

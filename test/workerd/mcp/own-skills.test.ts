/**
 * mcp-edge's own skills (decision 0072) through a plain SDK client and the SDK's host-side
 * SkillsClient, which checks each file against the entry's digest and frontmatter: the task tools'
 * skill on /mcp/tasks, the RAG pipelines' skill on /mcp/rag, both on /mcp, for a 2026-07-28 client
 * and a 2025-11-25 one (whose capabilities come from initialize).
 */
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadMcpServers } from "../../../workers/mcp-servers";
import { buildServer } from "../../../workers/mcp/hosting";
import { createServices } from "../../../workers/services";
import { fullAccess } from "../../helpers/access";
import { connectTo, type Era } from "../../helpers/mcp";
import { createUser, withScopedToken } from "../../helpers/users";

const TASKS_SKILL = "skill://using-task-tools/SKILL.md";
const RAG_SKILL = "skill://choosing-a-rag-pipeline/SKILL.md";

const ENDPOINTS: readonly { path: string; skills: readonly string[] }[] = [
  { path: "/mcp/tasks", skills: [TASKS_SKILL] },
  { path: "/mcp/rag", skills: [RAG_SKILL] },
  { path: "/mcp", skills: [RAG_SKILL, TASKS_SKILL] },
];
const ERAS: readonly Era[] = ["2026-07-28", "2025-11-25"];

describe("our own skills", () => {
  for (const era of ERAS) {
    for (const { path, skills } of ENDPOINTS) {
      it(`${path} (${era}) advertises the skills extension, lists its skills and serves them verified`, async () => {
        const user = await createUser();
        const client = await connectTo(path, user.token, { era });
        try {
          expect(client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/skills"]).toEqual({});
          const host = new SkillsClient(client);
          expect(host.supported).toBe(true);
          const listing = await host.list();
          expect(listing.invalid).toEqual([]);
          expect(listing.skills.map((skill) => skill.uri).sort()).toEqual([...skills]);
          if (era === "2026-07-28") expect(listing.cacheScope).toBe(path === "/mcp" ? "private" : "public");
          for (const entry of listing.skills) {
            const file = await host.read(entry);
            expect(file.verified).toBe(true);
            expect(file.frontmatter?.["name"]).toBe(entry.frontmatter.name);
            expect(file.body).toContain("# ");
            const { skill } = await host.get(entry.uri);
            expect(skill).toEqual(entry);
          }
        } finally {
          await client.close();
        }
      });
    }
  }

  it("says what each skill teaches: the task tools by name, the six pipelines with their measured figures", async () => {
    const user = await createUser();
    const client = await connectTo("/mcp", user.token, { era: "2026-07-28" });
    try {
      const host = new SkillsClient(client);
      const { skills } = await host.list();
      const text = async (uri: string) => (await host.read(skills.find((skill) => skill.uri === uri)!)).body ?? "";
      const tasks = await text(TASKS_SKILL);
      for (const tool of ["add_task", "list_tasks", "search_tasks", "complete_task", "update_task", "add_tags", "schedule_reminder"]) {
        expect(tasks).toContain(tool);
      }
      const rag = await text(RAG_SKILL);
      for (const pipeline of ["rag_basic", "rag_basic_rerank", "rag_crag", "rag_graphrag", "rag_colbert", "rag_global_graphrag"]) {
        expect(rag).toContain(`| ${pipeline} |`);
      }
      expect(rag).toContain("0.701");
    } finally {
      await client.close();
    }
  });

  it("lists a skill's SKILL.md among the resources and reads it with resources/read", async () => {
    const user = await createUser();
    const client = await connectTo("/mcp/rag", user.token, { era: "2026-07-28" });
    try {
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri)).toContain(RAG_SKILL);
      const read = await client.readResource({ uri: RAG_SKILL });
      expect(read.contents[0]).toMatchObject({ uri: RAG_SKILL, mimeType: "text/markdown" });
      await expect(client.readResource({ uri: "skill://choosing-a-rag-pipeline/NOTES.md" })).rejects.toThrow();
    } finally {
      await client.close();
    }
  });

  it("serves /mcp's built-in skills to a token without gateway:read", async () => {
    const user = await withScopedToken(await createUser(), ["tasks:read"]);
    const client = await connectTo("/mcp", user.token, { era: "2026-07-28" });
    try {
      const { skills } = await new SkillsClient(client).list();
      expect(skills.map((skill) => skill.uri).sort()).toEqual([RAG_SKILL, TASKS_SKILL]);
    } finally {
      await client.close();
    }
  });

  it("registers no skills for a request of tools/list and tools/call only, so those paths pay nothing for them", async () => {
    const user = await createUser();
    const authUser = { id: user.id, name: user.name };
    const ctx = { user: authUser, services: createServices(env, () => undefined), access: fullAccess(authUser) };
    for (const definition of (await loadMcpServers()).filter((server) => server.skills !== undefined)) {
      const extensions = (toolsOnly: boolean) => buildServer(definition, ctx, undefined, { toolsOnly }).server.getCapabilities().extensions;
      expect(extensions(false), definition.name).toEqual({ "io.modelcontextprotocol/skills": {} });
      expect(extensions(true), definition.name).toBeUndefined();
    }
  });
});

/**
 * Our own skills pass the SDK's checks strictly (a fault fails the catalog, never drops a skill in
 * silence), and the catalog is built on first use, not when a server's module is loaded.
 */
import { describe, expect, it } from "vitest";
import { ownSkills } from "../../../workers/mcp/own-skills";
import { RAG_PIPELINES_SKILL_FILES } from "../../../workers/rag/rag-pipelines-skill";
import { TASK_TOOLS_SKILL_FILES } from "../../../workers/tasks/task-tools-skill";

describe("our own skills", () => {
  it.each([
    ["using-task-tools", TASK_TOOLS_SKILL_FILES],
    ["choosing-a-rag-pipeline", RAG_PIPELINES_SKILL_FILES],
  ])("%s loads strictly, with every file listed and readable", async (name, files) => {
    const skills = ownSkills(files);
    const [entry] = await skills.entries();
    expect(entry?.frontmatter.name).toBe(name);
    expect(entry?.uri).toBe(`skill://${name}/SKILL.md`);
    const listed = entry?.resources === "dynamic" ? [] : (entry?.resources ?? []);
    expect(listed.map((file) => file.uri)).toEqual(Object.keys(files).map((path) => `skill://${path}`));
    expect(await skills.read(`skill://${name}/SKILL.md`)).toEqual({ text: files[`${name}/SKILL.md`], mimeType: "text/markdown" });
    expect(await skills.read(`skill://${name}/OTHER.md`)).toBeUndefined();
  });

  it("fails on a skill the SDK finds fault with, instead of serving less", async () => {
    const broken = ownSkills({ "wrong-name/SKILL.md": "---\nname: other-name\ndescription: A skill in the wrong folder.\n---\n\nBody\n" });
    await expect(broken.entries()).rejects.toThrow(/must match the last path segment/);
  });

  it("builds nothing until first asked", async () => {
    let reads = 0;
    const files = new Proxy(
      { ...TASK_TOOLS_SKILL_FILES },
      {
        ownKeys(target) {
          reads++;
          return Reflect.ownKeys(target);
        },
      },
    );
    const skills = ownSkills(files);
    expect(reads).toBe(0);
    await skills.entries();
    expect(reads).toBeGreaterThan(0);
  });
});

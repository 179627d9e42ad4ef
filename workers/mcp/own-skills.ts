/**
 * mcp-edge's own skills (the `io.modelcontextprotocol/skills` extension, SEP-2640), served with the
 * SDK's skills extension from files held as modules (`memorySkillFiles`: Workers have no filesystem).
 *
 * The catalog — every file's digest and size, the frontmatter, the SDK's checks, strict — does not
 * depend on the user, so it is built once per isolate, and only by the first request that asks for
 * a skill: a new isolate, and every tools/list or tools/call, never pays for it. That is why the
 * extension is served through a `SkillSource` over the lazily built `SkillCatalog` rather than the
 * catalog attached as it is (attaching needs it built before the request's server is). A
 * definition's `skills` are attached to each request's server by mcp/hosting.ts — not by its
 * `extend`, which the gateway also runs for the built-ins on /mcp, where one combined extension
 * serves them all — registering the `skill://` resource template and the skills methods and
 * declaring the capability under `capabilities.extensions` (decision 0072).
 */
import type { Resource } from "@modelcontextprotocol/server";
import { type Skill, SkillCatalog, type SkillReadResult, SkillsExtension, memorySkillFiles } from "@modelcontextprotocol/server/ext/skills";
import { onFirstUse } from "../lib/first-use";

const SKILL_SCHEME = "skill://";

/** Our skills change only with a deploy and are the same for every user. */
export const OWN_SKILLS_CACHE_HINT = { ttlMs: 3_600_000, cacheScope: "public" } as const;

/** One set of our skills: what the SDK's extension serves, and what /mcp combines with its sources' skills. */
export interface OwnSkills {
  /** The SDK's skills extension serving these skills alone (/mcp/tasks, /mcp/rag): attached per request by mcp/hosting.ts. */
  readonly extension: SkillsExtension;
  /** Every skill's entry (uri, frontmatter, files with digests), built on first use. */
  entries(): Promise<readonly Skill[]>;
  /** A file of one of these skills by its URI; undefined when none of them has it. */
  read(uri: string): Promise<SkillReadResult | undefined>;
  /** The `SKILL.md` of each skill, as resources/list shows them. */
  resources(): Promise<Resource[]>;
}

function mimeTypeOf(path: string): string {
  return path.endsWith(".md") ? "text/markdown" : "text/plain";
}

/** `files`: paths under the skills root (`<skill>/SKILL.md`, `<skill>/references/X.md`) → contents. */
export function ownSkills(files: Readonly<Record<string, string>>): OwnSkills {
  // strict: a skill of ours the SDK finds fault with fails loudly (test/unit/mcp/own-skills.test.ts), never silently dropped.
  const catalog = onFirstUse(() => SkillCatalog.load(memorySkillFiles({ ...files }), { strict: true, pageSize: Number.POSITIVE_INFINITY }));
  const entries = async () => (await catalog()).entries;
  const skills: Omit<OwnSkills, "extension"> = {
    entries,
    async read(uri) {
      const listed = (await entries()).some((skill) => skill.resources !== "dynamic" && skill.resources.some((file) => file.uri === uri));
      // Our paths are plain ASCII, so a listed URI is the scheme and the path as it is.
      const path = uri.slice(SKILL_SCHEME.length);
      const text = listed && Object.hasOwn(files, path) ? files[path] : undefined;
      return text === undefined ? undefined : { text, mimeType: mimeTypeOf(path) };
    },
    async resources() {
      return (await entries()).map((skill) => ({
        uri: skill.uri,
        name: skill.frontmatter.name,
        description: skill.frontmatter.description,
        mimeType: "text/markdown",
      }));
    },
  };
  const extension = new SkillsExtension({
    cacheHint: OWN_SKILLS_CACHE_HINT,
    source: {
      list: async () => ({ skills: [...(await entries())] }),
      get: async (uri) => (await entries()).find((skill) => skill.uri === uri),
      read: (uri) => skills.read(uri),
      listResources: () => skills.resources(),
    },
  });
  return { ...skills, extension };
}

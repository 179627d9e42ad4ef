/**
 * Skills on /mcp (the `io.modelcontextprotocol/skills` extension; decision 0072): every built-in
 * server's own skills, unchanged, and the skills of the user's own served sources, each at
 * `skill://<slug>__/<the source's path>` (sources/skill-uris.ts) with its name, frontmatter and
 * file digests as the source sent them — a host checks them against the files it reads. Served
 * with the SDK's skills extension over a source of skills built per request: the sources' part
 * depends on the user. The built-ins' skills are built once per isolate, on first use (mcp/own-skills.ts).
 *
 * A token without `gateway:read` sees only the built-ins' skills, as it sees only their tools.
 * A skill of another user's source, or of a disabled or hidden one, is "not found" (the lookup is
 * the user's own served sources: gateway/sources/federated-sources.repo.ts).
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { type Skill, type SkillReadResult, SkillsExtension, type SkillSource } from "@modelcontextprotocol/server/ext/skills";
import { lacking } from "../../auth/principal";
import type { Scope } from "../../auth/scopes";
import { log } from "../../lib/log";
import type { OwnSkills } from "../../mcp/own-skills";
import type { ToolContext } from "../../mcp/tool";
import type { SourceSkill } from "../calls/source-skills.service";
import { gatewaySkillUri, splitGatewaySkillUri } from "../sources/skill-uris";

/** The same short, private hint as /mcp's tools/list: which sources a user has changes it. */
const GATEWAY_SKILLS_CACHE_HINT = { ttlMs: 30_000, cacheScope: "private" } as const;

/** Where /mcp tells a host which source a skill came from. */
export const SKILL_SOURCE_META_KEY = "mcp-edge/source";

/**
 * A source's entry as /mcp serves it: every URI moved under the source's prefix, the rest as sent
 * (frontmatter verbatim, digests, sizes), the source's own `_meta` replaced by which source it is.
 * Undefined when a URI is not a `skill://` one (left out, logged).
 */
export function servedSkill({ slug, skill }: SourceSkill): Skill | undefined {
  const uri = gatewaySkillUri(slug, skill.uri);
  if (uri === undefined) return undefined;
  if (skill.resources === "dynamic")
    return { uri, frontmatter: skill.frontmatter, resources: "dynamic", _meta: { [SKILL_SOURCE_META_KEY]: slug } };
  const resources = [];
  for (const file of skill.resources) {
    const moved = gatewaySkillUri(slug, file.uri);
    if (moved === undefined) return undefined;
    resources.push({ uri: moved, digest: file.digest, size: file.size });
  }
  return { uri, frontmatter: skill.frontmatter, resources, _meta: { [SKILL_SOURCE_META_KEY]: slug } };
}

function base64Bytes(blob: string): Uint8Array {
  return Uint8Array.from(atob(blob), (char) => char.charCodeAt(0));
}

function gatewaySkillSource(ctx: ToolContext, builtins: readonly OwnSkills[], sourcesAllowed: boolean): SkillSource {
  const { user, services } = ctx;
  const own = async () => (await Promise.all(builtins.map((skills) => skills.entries()))).flat();
  return {
    async list() {
      const served = sourcesAllowed ? (await services.sourceSkills.list(user.id)).map(servedSkill) : [];
      const dropped = served.filter((skill) => skill === undefined).length;
      if (dropped > 0) log.warn("gateway.skills.unnamed", { user_id: user.id, dropped });
      const skills = [...(await own()), ...served.filter((skill) => skill !== undefined)];
      // In URI order, as the SDK's own catalogs list (code-unit order, not the locale's).
      return { skills: skills.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)) };
    },
    async get(uri) {
      const split = splitGatewaySkillUri(uri);
      if (!split) return (await own()).find((skill) => skill.uri === uri);
      if (!sourcesAllowed) return undefined;
      const skill = await services.sourceSkills.get(user.id, split.slug, split.uri);
      return skill && servedSkill({ slug: split.slug, skill });
    },
    async read(uri): Promise<SkillReadResult | undefined> {
      const split = splitGatewaySkillUri(uri);
      if (!split) {
        for (const skills of builtins) {
          const file = await skills.read(uri);
          if (file) return file;
        }
        return undefined;
      }
      if (!sourcesAllowed) return undefined;
      const result = await services.sourceSkills.read(user.id, split.slug, split.uri);
      const content = result?.contents.find((item) => item.uri === split.uri) ?? result?.contents[0];
      if (!content) return undefined;
      const mimeType = content.mimeType === undefined ? {} : { mimeType: content.mimeType };
      return "text" in content ? { text: content.text, ...mimeType } : { bytes: base64Bytes(content.blob), ...mimeType };
    },
    // Only the built-ins' SKILL.md files: a source's resources are listed (or not) by the resources federation.
    listResources: async () => (await Promise.all(builtins.map((skills) => skills.resources()))).flat(),
  };
}

/** Attaches /mcp's skills to this request's server: the built-ins' and, with `gateway:read`, the user's sources'. */
export function attachGatewaySkills(
  server: McpServer,
  ctx: ToolContext,
  builtins: readonly OwnSkills[],
  sourceScopes: readonly Scope[],
): void {
  const sourcesAllowed = lacking(ctx.access.principal, sourceScopes).length === 0;
  new SkillsExtension({
    cacheHint: GATEWAY_SKILLS_CACHE_HINT,
    source: gatewaySkillSource(ctx, builtins, sourcesAllowed),
    onWarning: (warning) => log.warn("gateway.skills.warning", { path: warning.path, message: warning.message }),
  }).attach(server);
}

/**
 * Finding 5, the text half (decision 0049): an upstream (/poison/mcp) hides instructions in its tool
 * descriptions, titles, schema descriptions and annotations — Unicode tag characters, bidi controls,
 * zero-width characters, C0/C1 controls, terminal escapes — lists a tool titled `add_task` like the
 * built-in, and claims readOnlyHint on a tool that says it deletes everything. The gateway stores
 * and serves the text cleaned, tells the owner what it removed, shows every upstream title with its
 * source, and serves the upstream's annotations only as the upstream's claims under `_meta`.
 */
import { describe, expect, it } from "vitest";
import { connectGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

/** Where /mcp serves an upstream's own annotations (gateway/catalog/upstream-annotations.ts): a contract with clients, spelled out. */
const UPSTREAM_ANNOTATIONS_META_KEY = "mcp-edge/upstream-annotations";

/** Anything a reader cannot see but a model reads: tags, bidi, zero-width and format characters, C0/C1 controls but \t and \n, ESC. */
const INVISIBLE = /[\u{E0000}-\u{E007F}\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\x00-\x08\x0B-\x1F\x7F-\x9F]/u;

/** Every string in a JSON value, with where it is. */
function strings(value: unknown, path = "$"): [string, string][] {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, `${path}[${i}]`));
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([key, item]) => strings(item, `${path}.${key}`));
  return [];
}

function expectNothingInvisible(value: unknown): void {
  const hidden = strings(value).filter(([, text]) => INVISIBLE.test(text));
  expect(hidden.map(([path, text]) => `${path}: ${JSON.stringify(text)}`)).toEqual([]);
}

interface DetailTool {
  name: string;
  title: string | null;
  description: string;
  warnings: string[];
  annotations: Record<string, unknown>;
  held: boolean;
}

describe("an upstream's tool text (finding 5)", () => {
  it("is stored cleaned, and the owner is told per tool what was removed", async () => {
    const owner = await createUser();
    const registered = await registerSource(owner, fixtureUrl("poison"), { name: "Poison" });
    expect(registered.status).toBe(201);
    expect(registered.body.source.last_discovery_error).toBeNull();
    const path = `/api/sources/${registered.body.source.id}`;
    const detail = await api<{ source: { warnings: string[] }; tools: DetailTool[] }>(owner, "GET", path);
    expectNothingInvisible(detail.body);

    const addTask = detail.body.tools.find((tool) => tool.name === "add_task")!;
    expect(addTask.description).toContain("Adds a task.");
    // Line feeds and tabs stay in a description.
    expect(addTask.description).toContain("\nSecond line\tkept.");
    expect(addTask.title).toBe("add_taskzerowidthjoinend");
    const descriptionWarning = addTask.warnings.find((warning) => warning.startsWith("description: removed "));
    const kinds = [
      "Unicode tag characters",
      "bidirectional controls",
      "zero-width or other invisible format characters",
      "control characters",
      "terminal escape sequences",
    ];
    for (const kind of kinds) {
      expect(descriptionWarning, kind).toContain(kind);
    }
    expect(addTask.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^title: removed 4 zero-width or other invisible format characters$/),
        expect.stringMatching(/^input schema descriptions and titles: removed /),
        expect.stringMatching(/^output schema descriptions and titles: removed \d+ terminal escape sequences$/),
        expect.stringMatching(/^annotations: removed /),
      ]),
    );
    expect(detail.body.source.warnings).toContain("1 of its tools had text removed or shortened; each tool's warnings say what");
    expect(detail.body.tools.find((tool) => tool.name === "wipe_everything")!.warnings).toEqual([]);
  });

  it("is served on /mcp cleaned, each title with its source, and the upstream's annotations only as its claims", async () => {
    const owner = await createUser();
    const { body } = await registerSource(owner, fixtureUrl("poison"), { name: "Poison" });
    const slug = body.source.slug;
    const client = await connectGateway(owner);
    const { tools } = await client.listTools();
    const mine = tools.filter((tool) => tool.name.startsWith(`${slug}__`));
    expect(mine.map((tool) => tool.name).sort()).toEqual([`${slug}__add_task`, `${slug}__wipe_everything`]);
    expectNothingInvisible(mine);

    const addTask = mine.find((tool) => tool.name === `${slug}__add_task`)!;
    const builtin = tools.find((tool) => tool.name === "add_task")!;
    // Titled like the built-in upstream, served with its source: never the bare name.
    expect(addTask.title).toBe(`add_taskzerowidthjoinend (${slug})`);
    expect(addTask.title).not.toBe(builtin.title);
    const props = addTask.inputSchema.properties as Record<string, { title?: string; description?: string }>;
    expect(props["title"]).toEqual({ type: "string", title: "Titleetirw x", description: "The task title" });

    const wipe = mine.find((tool) => tool.name === `${slug}__wipe_everything`)!;
    expect(wipe.title).toBe(`wipe_everything (${slug})`);
    for (const tool of mine) {
      expect(tool.title!.endsWith(` (${slug})`), tool.name).toBe(true);
      // No hint as the gateway's own: clients fall back to the specification's cautious defaults.
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
        expect(tool.annotations?.[hint as keyof typeof tool.annotations], `${tool.name} ${hint}`).toBeUndefined();
      }
    }
    expect(wipe._meta?.[UPSTREAM_ANNOTATIONS_META_KEY]).toEqual({ readOnlyHint: true, destructiveHint: false });
    const claims = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    expect(addTask._meta?.[UPSTREAM_ANNOTATIONS_META_KEY]).toMatchObject(claims);
    // The built-ins keep their own annotations: those are mcp-edge's.
    expect(builtin.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });

    // Approved by registering: it is called as before.
    const called = await client.callTool({ name: `${slug}__wipe_everything`, arguments: {} });
    expect(textOf(called)).toBe("poison:wipe_everything");
    await client.close();
  });
});

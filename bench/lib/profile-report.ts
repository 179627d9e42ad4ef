/**
 * Turns a V8 CPU profile of a bundled Worker into "where the time goes": self time per package
 * (which code burns the CPU) and inclusive time per pipeline stage (which step of a request costs
 * what). Packages come from the `// <path>` comments esbuild writes before each module of an
 * unminified bundle, so no source map is needed. Stages overlap (they nest), so they do not sum to
 * 100 %; packages do.
 */
import type { CallFrame, CpuProfile, ProfileNode } from "./cdp";

export interface Share {
  name: string;
  msPerRequest: number;
  /** Fraction of the active (non-idle) sampled time. */
  share: number;
}

export interface ProfileSummary {
  requests: number;
  sampledMs: number;
  activeMsPerRequest: number;
  byPackage: Share[];
  byStage: Share[];
  topFunctions: Share[];
}

interface Section {
  line: number;
  name: string;
}

/** Module sections of an esbuild bundle, by starting line (0-based). */
export function bundleSections(bundle: string): Section[] {
  const sections: Section[] = [];
  const lines = bundle.split("\n");
  for (let line = 0; line < lines.length; line++) {
    const match = /^\/\/ (\S+\.(?:m?[jt]s|cjs|json))$/.exec(lines[line]!);
    if (match) sections.push({ line, name: packageOf(match[1]!) });
  }
  return sections;
}

function packageOf(path: string): string {
  const dependency = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency) return dependency[1]!;
  if (path.startsWith("workers/") || path.startsWith("d1/") || path.startsWith("durable-objects/")) return "mcp-edge (workers/, d1/)";
  if (path.startsWith("bench/")) return "bench peer code";
  return path;
}

export function sectionAt(sections: readonly Section[], line: number): string {
  let low = 0;
  let high = sections.length - 1;
  let found = "(bundle prelude)";
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (sections[middle]!.line <= line) {
      found = sections[middle]!.name;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

type StagePredicate = (frame: CallFrame, pkg: string) => boolean;

const named =
  (...names: string[]): StagePredicate =>
  (frame) =>
    names.includes(frame.functionName);

/** Frames of the per-request teardown: agents' `teardown` closing transport and server, the SDK's `_onclose`. */
const inTeardown: StagePredicate = (frame, pkg) =>
  (frame.functionName === "teardown" && pkg === "agents") || frame.functionName === "_onclose";

/**
 * The request pipeline of mcp-edge, as function names in the bundle. A stage counts a sample when
 * one of its frames is on the stack, unless a frame matching `unless` is too.
 */
const STAGES: { name: string; matches: StagePredicate; unless?: StagePredicate }[] = [
  {
    name: "auth: authenticate() (bearer, SHA-256, token cache)",
    matches: (frame, pkg) => frame.functionName === "authenticate" && pkg.startsWith("mcp-edge"),
  },
  {
    name: "openDb(): drizzle(d1, { schema }) per request",
    matches: (frame, pkg) => frame.functionName === "openDb" && pkg.startsWith("mcp-edge"),
  },
  { name: "buildServer(): new McpServer + 11 × registerTool", matches: named("buildServer") },
  {
    name: "createMcpHandler(): per-request handler construction",
    matches: named("createStatelessMcpHandler", "createLegacyCompatibilityRequestHandler"),
  },
  { name: "era detection: isLegacyRequest()", matches: named("isLegacyRequest") },
  { name: "transport: handlePostRequest() (read body, parse + validate JSON-RPC)", matches: named("handlePostRequest") },
  {
    name: "zod → JSON Schema (tools/list, output schema)",
    matches: named("standardSchemaToJsonSchema", "toJSONSchema", "zodEmittedPattern", "convertOutputSchemaJson"),
  },
  { name: "x-mcp-header scan of input schemas (tools/list)", matches: named("scanXMcpHeaderDeclarations") },
  { name: "tool argument / result validation", matches: named("validateToolInput", "validateToolOutput") },
  {
    name: "domain + drizzle + D1 client",
    matches: (frame, pkg) =>
      pkg === "drizzle-orm" ||
      pkg.includes("d1-api") ||
      ((frame.functionName === "list" || frame.functionName === "add") && pkg.startsWith("mcp-edge")),
  },
  { name: "teardown: transport.close() + server.close() (SdkError, AbortController.abort)", matches: inTeardown },
  {
    name: "response: SSE framing, stream re-wrapping, withCors copies",
    matches: (frame, pkg) =>
      ["writeSSEEvent", "withCors", "wrapResponseBodyWithAuthContext"].includes(frame.functionName) ||
      (frame.functionName === "pull" && (pkg === "agents" || pkg.startsWith("@modelcontextprotocol"))),
    unless: inTeardown,
  },
  // The gateway row (/mcp → the stateless call from the isolate, or the source's Durable Object →
  // the upstream workerd's /mcp/tasks). Synchronous stacks only:
  // time after an await is charged to the frames that resumed, not to the function that awaited.
  { name: "gateway: prepareCatalog() (inventory, then the SDK path on /mcp)", matches: named("prepareCatalog") },
  { name: "gateway: D1 inventory + hidden-tools queries", matches: named("enabledInventory", "listedInventory", "hiddenBuiltins") },
  { name: "gateway: D1 tool lookup (the called tool's source)", matches: named("findEnabledTool", "findCallableTool", "findCallTarget") },
  {
    name: "call bookkeeping: breaker view + audit record (isolate), report/apply (object)",
    matches: (frame, pkg) => ["record", "report", "apply"].includes(frame.functionName) && pkg.startsWith("mcp-edge"),
  },
  {
    name: "upstream client: result validation (CallToolResult, output schema)",
    matches: (frame, pkg) => pkg === "@modelcontextprotocol/client" && /^validate/.test(frame.functionName),
  },
  {
    name: "gateway: source config (secret header decrypt, fingerprint)",
    matches: (frame, pkg) => frame.functionName === "config" && pkg.startsWith("mcp-edge"),
  },
  { name: "gateway: SDK path serveWithSdk() (also /mcp/tasks off the fast path)", matches: named("serveWithSdk") },
  { name: "stateless call from the isolate (callStatelessSource)", matches: named("callStatelessSource") },
  { name: "retries + connection (withRetries, both paths)", matches: named("withRetries") },
  { name: "sessionful: SDK Client.callTool in the object (callMcpTool)", matches: named("callMcpTool") },
  { name: "fast path answerFast() (direct /mcp/tasks)", matches: named("answerFast") },
  { name: "garbage collection", matches: named("(garbage collector)") },
];

const IDLE = new Set(["(idle)", "(program)", "(root)"]);

/**
 * Who pays for a sample's self time: the leaf's package; for a native leaf (JSON.stringify, a
 * RegExp, Headers…) the package of its nearest JS caller; V8 pseudo-frames stand for themselves.
 */
function selfOwner(
  leaf: ProfileNode,
  parentOf: (node: ProfileNode) => ProfileNode | undefined,
  pkgOf: (frame: CallFrame) => string,
): string {
  let owner: ProfileNode | undefined = leaf;
  while (owner && owner.callFrame.url === "" && !owner.callFrame.functionName.startsWith("(")) owner = parentOf(owner);
  if (!owner || owner.callFrame.functionName === "(root)") return "workerd runtime (natives with no JS caller)";
  return owner.callFrame.functionName.startsWith("(") ? owner.callFrame.functionName : pkgOf(owner.callFrame);
}

function sampleWeights(profile: CpuProfile): number[] {
  const deltas = profile.timeDeltas ?? [];
  const count = profile.samples?.length ?? 0;
  const mean = count > 0 ? (profile.endTime - profile.startTime) / count : 0;
  // A sample stands for the time until the next one; the last gets the mean interval.
  return Array.from({ length: count }, (_unused, i) => (i + 1 < deltas.length ? deltas[i + 1]! : mean));
}

export function summarizeProfile(
  profile: CpuProfile,
  sections: readonly Section[],
  bundleUrlSuffix: string,
  requests: number,
): ProfileSummary {
  const byId = new Map<number, ProfileNode>(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const pkgOf = (frame: CallFrame) =>
    frame.url.endsWith(bundleUrlSuffix) ? sectionAt(sections, frame.lineNumber) : frame.url === "" ? "(native)" : frame.url;

  const packages = new Map<string, number>();
  const stages = new Map<string, number>();
  const functions = new Map<string, number>();
  const weights = sampleWeights(profile);
  let active = 0;
  let total = 0;

  (profile.samples ?? []).forEach((leafId, index) => {
    const weight = weights[index]! / 1000; // µs → ms
    total += weight;
    const leaf = byId.get(leafId);
    if (!leaf || IDLE.has(leaf.callFrame.functionName)) return;
    active += weight;

    const ownerPkg = selfOwner(leaf, (node) => byId.get(parent.get(node.id) ?? -1), pkgOf);
    packages.set(ownerPkg, (packages.get(ownerPkg) ?? 0) + weight);
    const leafName = `${leaf.callFrame.functionName || "(anonymous)"} [${pkgOf(leaf.callFrame)}]`;
    functions.set(leafName, (functions.get(leafName) ?? 0) + weight);

    // Inclusive: each stage counts a sample once, however many of its frames are on the stack.
    const stack: { frame: CallFrame; pkg: string }[] = [];
    for (let node: ProfileNode | undefined = leaf; node; node = byId.get(parent.get(node.id) ?? -1)) {
      stack.push({ frame: node.callFrame, pkg: pkgOf(node.callFrame) });
    }
    for (const stage of STAGES) {
      const on = stack.some(({ frame, pkg }) => stage.matches(frame, pkg));
      const unless = stage.unless;
      const excluded = unless !== undefined && stack.some(({ frame, pkg }) => unless(frame, pkg));
      if (on && !excluded) stages.set(stage.name, (stages.get(stage.name) ?? 0) + weight);
    }
  });

  const shares = (entries: Map<string, number>, limit: number): Share[] =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, ms]) => ({ name, msPerRequest: ms / requests, share: active > 0 ? ms / active : 0 }));

  return {
    requests,
    sampledMs: total,
    activeMsPerRequest: active / requests,
    byPackage: shares(packages, 12),
    byStage: STAGES.map((stage) => ({
      name: stage.name,
      msPerRequest: (stages.get(stage.name) ?? 0) / requests,
      share: active > 0 ? (stages.get(stage.name) ?? 0) / active : 0,
    })),
    topFunctions: shares(functions, 12),
  };
}

/**
 * Profiles mcp-edge inside workerd: a separate instance started with the V8 inspector enabled (the
 * load phase never runs with it), sampled while it serves N sequential requests per tool.
 */
import { readFileSync } from "node:fs";
import { profileWhile } from "./cdp";
import type { Cleanup } from "./cleanup";
import { sendSequential } from "./client";
import type { Tool } from "./mcp";
import { bundleSections, type ProfileSummary, summarizeProfile } from "./profile-report";
import { type FleetPaths, startMcpEdge } from "./targets";

const SAMPLING_INTERVAL_US = 100;
const WARMUP_REQUESTS = 200;

export async function profileMcpEdge(
  paths: FleetPaths,
  cleanup: Cleanup,
  input: { bundle: string; token: string; tokenHash: string; seedTasks: number; requests: number; tools: readonly Tool[] },
): Promise<Partial<Record<Tool, ProfileSummary>>> {
  const worker = await startMcpEdge(paths, cleanup, {
    label: "mcp-edge (profiled) workerd",
    bundle: input.bundle,
    tokenHash: input.tokenHash,
    seedTasks: input.seedTasks,
    inspectorPort: 0,
  });
  try {
    const inspector = await worker.miniflare.getInspectorURL();
    const sections = bundleSections(readFileSync(input.bundle, "utf8"));
    const summaries: Partial<Record<Tool, ProfileSummary>> = {};
    for (const tool of input.tools) {
      await sendSequential(worker.url, input.token, tool, WARMUP_REQUESTS);
      // workerd names each Worker's inspector target after its service: core:user:<worker name>.
      const target = `ws://${inspector.host}/core:user:mcp-edge`;
      const profile = await profileWhile(target, SAMPLING_INTERVAL_US, () =>
        sendSequential(worker.url, input.token, tool, input.requests),
      );
      summaries[tool] = summarizeProfile(profile, sections, "index.js", input.requests);
    }
    return summaries;
  } finally {
    await worker.dispose();
  }
}

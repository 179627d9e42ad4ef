/**
 * Profiles mcp-edge inside workerd: a separate instance started with the V8 inspector enabled (the
 * load phase never runs with it), sampled while it serves N sequential requests per tool. The
 * gateway run's upstream is a second workerd, started for that run only and not sampled.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { profileWhile } from "./cdp";
import type { Cleanup } from "./cleanup";
import { sendSequential } from "./client";
import { DIRECT, type Route, type Tool } from "./mcp";
import { bundleSections, type ProfileSummary, summarizeProfile } from "./profile-report";
import { gatewayRoute } from "./gateway";
import { type FleetPaths, startMcpEdge, withTasksSource } from "./targets";

const SAMPLING_INTERVAL_US = 100;
const WARMUP_REQUESTS = 200;

export async function profileMcpEdge(
  paths: FleetPaths,
  cleanup: Cleanup,
  input: {
    bundle: string;
    token: string;
    tokenHash: string;
    seedTasks: number;
    requests: number;
    tools: readonly Tool[];
    /** Also profile `tools/call <prefix>list_tasks` on /mcp (the gateway row, its upstream a second workerd), as "gateway list_tasks". */
    gateway?: boolean;
    /** A directory to write each raw profile to (`<label>.cpuprofile`, for DevTools or a closer look). */
    saveTo?: string;
  },
): Promise<Record<string, ProfileSummary>> {
  const worker = await startMcpEdge(paths, cleanup, {
    label: "mcp-edge (profiled) workerd",
    bundle: input.bundle,
    token: input.token,
    tokenHash: input.tokenHash,
    seedTasks: input.seedTasks,
    inspectorPort: 0,
  });
  try {
    const inspector = await worker.miniflare.getInspectorURL();
    const sections = bundleSections(readFileSync(input.bundle, "utf8"));
    const summaries: Record<string, ProfileSummary> = {};
    const runs: { label: string; tool: Tool; route: () => Promise<Route> }[] = input.tools.map((tool) => ({
      label: tool,
      tool,
      route: async () => DIRECT,
    }));
    if (input.gateway) {
      const upstreamRoute = async (): Promise<Route> => {
        const { bundle, token, tokenHash, seedTasks } = input;
        const label = "mcp-edge upstream workerd (profile)";
        const upstream = await startMcpEdge(paths, cleanup, { label, bundle, token, tokenHash, seedTasks });
        return gatewayRoute(await withTasksSource(worker, upstream, token));
      };
      runs.push({ label: "gateway list_tasks", tool: "list_tasks", route: upstreamRoute });
    }
    for (const { label, tool, route: routeOf } of runs) {
      const route = await routeOf();
      await sendSequential(worker.url, input.token, tool, WARMUP_REQUESTS, route);
      // workerd names each Worker's inspector target after its service: core:user:<worker name>.
      // The source's Durable Object runs in this same isolate, so it is sampled too; the upstream is not.
      const target = `ws://${inspector.host}/core:user:mcp-edge`;
      const profile = await profileWhile(target, SAMPLING_INTERVAL_US, () =>
        sendSequential(worker.url, input.token, tool, input.requests, route),
      );
      summaries[label] = summarizeProfile(profile, sections, "index.js", input.requests);
      if (input.saveTo) {
        mkdirSync(input.saveTo, { recursive: true });
        writeFileSync(join(input.saveTo, `${label.replaceAll(/[^a-z0-9_-]+/gi, "-")}.cpuprofile`), JSON.stringify(profile));
      }
    }
    return summaries;
  } finally {
    await worker.dispose();
  }
}

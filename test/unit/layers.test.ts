/**
 * The layer check behind npm run lint:deps (bin/check-layers.ts, decision 0059): every source file
 * of the Workers in exactly one layer of .dependency-cruiser-layers.cjs, so the dependency rules see
 * all of the code.
 */
import { describe, expect, it } from "vitest";
import { loadLayers, placeFiles, sourceFiles } from "../../bin/lib/layers";

const layers = loadLayers();

function layerOf(file: string): string | undefined {
  const { byLayer } = placeFiles([file], layers);
  return [...byLayer].find(([, files]) => files.includes(file))?.[0];
}

describe("every source file of the Workers is in exactly one layer", () => {
  it("holds for the tree as it is", () => {
    const files = sourceFiles();
    const { byLayer, unplaced, ambiguous } = placeFiles(files, layers);
    expect({ unplaced, ambiguous }).toEqual({ unplaced: [], ambiguous: [] });
    expect([...byLayer.values()].flat().sort()).toEqual(files);
    expect(files).toContain("workers/index.ts");
    expect(files).toContain("durable-objects/thinking.do.ts");
  });

  it("names a file in no layer: a stray root module, an unknown role, a folder no area declares, a class without .do.ts", () => {
    const stray = ["workers/helpers.ts", "workers/rag/chunk.helper.ts", "workers/billing/invoice.ts", "durable-objects/lease.ts"];
    expect(placeFiles(stray, layers).unplaced).toEqual(stray);
  });

  it("names a file in two layers, with both", () => {
    expect(placeFiles(["workers/lib/users.repo.ts"], layers).ambiguous).toEqual([
      { file: "workers/lib/users.repo.ts", layers: ["repositories", "lib"] },
    ]);
  });
});

describe("a file's layer is its role suffix, wherever it sits", () => {
  it.each([
    ["workers/tasks/tasks.routes.ts", "adapters"],
    ["workers/tasks/tasks.format.ts", "adapters"],
    ["workers/mcp/hosting.ts", "adapters"],
    ["workers/tasks/tasks.service.ts", "domain"],
    ["workers/agent/intent/dates.ts", "domain"],
    ["workers/tasks/tasks.repo.ts", "repositories"],
    ["workers/tasks/tasks.schema.ts", "schema"],
    ["workers/mcp-client/connect.ts", "mcp client"],
    ["workers/lib/errors.ts", "lib"],
    ["workers/agent-worker/worker.ts", "entry"],
    ["workers/agent-worker/worker-config.ts", "domain"],
    ["workers/agent-worker/env.d.ts", "declarations"],
  ])("%s is in %s", (file, layer) => {
    expect(layerOf(file)).toBe(layer);
  });

  it("keeps it when the gateway's files move into rooms", () => {
    expect(layerOf("workers/gateway/registry/sources.repo.ts")).toBe("repositories");
    expect(layerOf("workers/gateway/calls/breaker.ts")).toBe("domain");
    expect(layerOf("workers/gateway/calls/call-fast-path.ts")).toBe("adapters");
    expect(layerOf("workers/gateway/authorization/connect-elicitation.ts")).toBe("adapters");
  });
});

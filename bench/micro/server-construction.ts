/**
 * Micro-benchmark of mcp-edge's per-request MCP work, in plain Node with the product's own code
 * (workers/mcp/pipeline.ts and hosting.ts, the tasks server definition): how long building the server, converting
 * the tool schemas and serving one tools/list through createMcpHandler take, without HTTP or D1.
 * V8 in Node is not workerd, so read these as shares of the work, not as Worker CPU time.
 *
 * Run by the bench as a child process (fresh heap, nothing else on its event loop):
 * `node --import tsx --import ./bench/micro/cloudflare-modules.mjs bench/micro/server-construction.ts` prints one JSON
 * object on stdout.
 */
import { z } from "zod";
import { ALL_SCOPES } from "../../workers/auth/scopes";
import { hashToken } from "../../workers/auth/tokens";
import { getPlatformProxy } from "wrangler";
import { createServices } from "../../workers/services";
import { buildServer } from "../../workers/mcp/hosting";
import { serveMcp } from "../../workers/mcp/pipeline";
import type { ToolContext } from "../../workers/mcp/tool";
import { tasksServer } from "../../workers/tasks/tasks.server";
import { MCP_PATH, parseRpcMessage, requestBody, requestHeaders, sampleProblem } from "../lib/mcp";
import { median } from "../lib/stats";

const BATCHES = 5;
const WARMUP_ITERATIONS = 300;

/** Median over batches of the mean µs per call. */
async function timeIt(iterations: number, work: () => unknown | Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP_ITERATIONS; i++) await work();
  const perBatch: number[] = [];
  for (let batch = 0; batch < BATCHES; batch++) {
    const started = performance.now();
    for (let i = 0; i < iterations; i++) await work();
    perBatch.push(((performance.now() - started) * 1000) / iterations);
  }
  return median(perBatch);
}

// Real services from the product's composition root, on wrangler's local bindings (nothing
// persisted): building a server reads them, though tools/list never calls into them.
const platform = await getPlatformProxy<Env>({ configPath: "bench/micro/wrangler.micro.toml", persist: false });
const benchUser = { id: 1, name: "bench" };
const ctx: ToolContext = {
  user: benchUser,
  services: createServices(platform.env, (promise) => platform.ctx.waitUntil(promise)),
  // An API token's access: every scope, so no request is refused.
  access: { principal: { user: benchUser, scopes: ALL_SCOPES, via: "api_token" }, refuse: () => new Response(null, { status: 403 }) },
};
const token = "mcpe_micro-benchmark-token";

function toolsListRequest(): Request {
  // An HTTP server sets Host; createMcpHandler rejects a localhost request without one.
  const headers = { ...requestHeaders(token), host: "localhost" };
  return new Request(`http://localhost${MCP_PATH}`, { method: "POST", headers, body: requestBody("tools/list") });
}

const schemas = tasksServer.tools.flatMap((tool) => [
  { schema: tool.input, io: "input" as const },
  { schema: tool.output, io: "output" as const },
]);
const listResponse = await serveMcp(toolsListRequest(), tasksServer, ctx);
const listBody = await listResponse.text();
const listContentType = listResponse.headers.get("content-type") ?? "";
const problem = sampleProblem("tools/list", listResponse.status, listContentType, listBody);
if (problem) throw new Error(`tools/list in Node did not return a real result: ${problem}`);
const listPayload = parseRpcMessage(listBody, listContentType);

const results = {
  runtime: `node ${process.version}`,
  tools: tasksServer.tools.length,
  tools_list_response_bytes: Buffer.byteLength(listBody),
  tools_list_content_type: listContentType,
  us_per_op: {
    "buildServer (new McpServer + registerTool × tools)": await timeIt(500, () => buildServer(tasksServer, ctx)),
    "zod → JSON Schema, every tool's input + output (uncached: what a schema cache saves)": await timeIt(200, () =>
      schemas.map(({ schema, io }) => z.toJSONSchema(schema, { io })),
    ),
    "serveMcp(tools/list) → response text (whole MCP layer)": await timeIt(200, async () =>
      (await serveMcp(toolsListRequest(), tasksServer, ctx)).text(),
    ),
    "JSON.stringify(tools/list result)": await timeIt(500, () => JSON.stringify(listPayload)),
    "hashToken (SHA-256 of the bearer token)": await timeIt(2000, () => hashToken(token)),
  },
};
await platform.dispose();
process.stdout.write(`${JSON.stringify(results)}\n`);

/**
 * The layers of docs/architecture.md ("Layers"), as path patterns: every source file under workers/,
 * durable-objects/ and d1/ matches exactly one (bin/check-layers.ts fails the build otherwise, and
 * prints how many files each layer holds), and .dependency-cruiser.cjs states each layer's arrows.
 *
 * A file's layer is its role suffix (`sources.routes.ts`, `tasks.service.ts` …), wherever it sits,
 * so moving a file between folders keeps its layer; a file without a role suffix inside an area is a
 * domain module — the strictest layer, so an adapter left unsuffixed fails the domain's rules rather
 * than slipping past them. Four folders are one layer whole (http/, mcp/, mcp-client/, lib/), and the
 * root of workers/ holds the wiring, named file by file. Decision 0059 says why.
 *
 * Layers, top to bottom; a module imports from its own layer or below (the rules say exactly how):
 *   entry             each Worker's entry and its RPC entry points: workers/index.ts, app.ts, api-app.ts,
 *                     agent-mcp.ts; the agent Worker's workers/agent-worker/worker.ts
 *   durable objects   durable-objects/*.do.ts: entry points too, each wiring its storage to its area
 *   registries        workers/mcp-servers.ts, workers/queue-events.ts, workers/sign-in-routes.ts (lists the entry wires up)
 *   adapters          HTTP, MCP, queue and cron edges: workers/http/, workers/mcp/, *.routes.ts, *.tools.ts,
 *                     *.server.ts, *.resources.ts, *.consumer.ts, *.cron.ts, *.relay.ts, *.entrypoint.ts,
 *                     *.format.ts (a result's text for a person); and, by name until they carry a suffix,
 *                     the gateway's MCP-speaking call-fast-path.ts and connect-elicitation.ts
 *   composition       workers/services.ts (builds the domain services; adapters reach them through it) and
 *                     workers/isolate-state.ts (what an isolate remembers, which only services.ts hands on)
 *   domain            *.service.ts, *.rules.ts, *.config.ts, *.types.ts and every unsuffixed module of an area
 *   mcp client        workers/mcp-client/ (the one outbound MCP client: the only user of the client SDK)
 *   repositories      *.repo.ts, *.statements.ts (drizzle on D1)
 *   schema            *.schema.ts (zod), d1/*.ts (the drizzle tables and the FTS view)
 *   lib               workers/lib/ (primitives every layer may use)
 *   declarations      *.d.ts (the generated Env types and the hand-typed secrets: ambient, imported by nothing)
 */

/** The folders of workers/ whose unsuffixed files are domain modules (docs/architecture.md, "Where things live"). */
const AREAS = [
  "activity",
  "agent",
  "agent-worker",
  "apps",
  "auth",
  "chat",
  "events",
  "gateway",
  "health",
  "limits",
  "rag",
  "tasks",
  "telemetry",
  "thinking",
  "upstream-connections",
];

const ADAPTER_ROLES = ["routes", "tools", "server", "resources", "consumer", "cron", "relay", "entrypoint", "format"];
const DOMAIN_ROLES = ["service", "rules", "config", "types"];
/** The gateway's adapters without a role suffix, by name wherever the gateway's rooms put them. */
const NAMED_GATEWAY_ADAPTERS = "gateway/(.*/|)(call-fast-path|connect-elicitation)[.]ts$";
/** Unsuffixed files of an area that are not domain: the agent Worker's entry and the named gateway adapters. */
const NOT_DOMAIN = `agent-worker/worker[.]ts$|${NAMED_GATEWAY_ADAPTERS}`;

/** @type {Record<string, string>} layer name → the pattern of the files in it (a regular expression over the path). */
const LAYERS = {
  entry: "^workers/(index|app|api-app|agent-mcp)[.]ts$|^workers/agent-worker/worker[.]ts$",
  "durable objects": "^durable-objects/[a-z0-9-]+[.]do[.]ts$",
  registries: "^workers/(mcp-servers|queue-events|sign-in-routes)[.]ts$",
  adapters: ["^workers/(http|mcp)/", `^workers/.+[.](${ADAPTER_ROLES.join("|")})[.]ts$`, `^workers/${NAMED_GATEWAY_ADAPTERS}`].join("|"),
  composition: "^workers/(services|isolate-state)[.]ts$",
  domain: [
    `^workers/(${AREAS.join("|")})/(.*/|)[a-z0-9-]+[.](${DOMAIN_ROLES.join("|")})[.]ts$`,
    // Unsuffixed; the agent Worker's entry and the two named gateway adapters are not domain.
    `^workers/(?!${NOT_DOMAIN})(${AREAS.join("|")})/(.*/|)[a-z0-9-]+[.]ts$`,
  ].join("|"),
  "mcp client": "^workers/mcp-client/",
  repositories: "^workers/.+[.](repo|statements)[.]ts$",
  schema: "^workers/.+[.]schema[.]ts$|^d1/[a-z0-9-]+[.]ts$",
  lib: "^workers/lib/",
  declarations: "^(workers|durable-objects|d1)/(.*/|)[a-z0-9-]+[.]d[.]ts$",
};

module.exports = { LAYERS };

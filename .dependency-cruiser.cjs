/**
 * The dependency direction of docs/architecture.md ("Layers"), checked by `npm run lint:deps`
 * (and .ci/run). Layers, top to bottom; a module imports only from its own layer or below:
 *
 *   entry        workers/index.ts, workers/app.ts, workers/api-app.ts (the REST app, built on first use),
 *                workers/agent-mcp.ts (the MCP endpoints for the agent Worker), workers/agent/worker.ts
 *                (the chat agent's own Worker)
 *   registries   workers/mcp-servers.ts, workers/queue-events.ts (lists the entry wires up)
 *   adapters     workers/http/, workers/mcp/, *.routes.ts, *.tools.ts, *.server.ts, *.resources.ts,
 *                *.consumer.ts, *.cron.ts, *.relay.ts, *.entrypoint.ts (RPC entry points of the
 *                Worker), gateway/call-fast-path.ts
 *   composition  workers/services.ts (builds the domain services; adapters reach them through it)
 *   services     *.service.ts and the unsuffixed domain modules beside them
 *   repositories *.repo.ts, *.statements.ts
 *   schema       *.schema.ts, d1/
 *
 * Durable Objects (durable-objects/) host domain code and are reached from it only through the
 * bindings typed by the generated Env, never by importing the class. The folder-level cycle check
 * is in .dependency-cruiser-folders.cjs (it needs the root wiring files left out).
 *
 * There are no exceptions: a new one must be one edge, say why, and name what removes it.
 */
const ENTRY = "^workers/(index|app|api-app|agent-mcp|agent/worker)[.]ts$";
const REGISTRIES = "^workers/(mcp-servers|queue-events)[.]ts$";
const COMPOSITION = "^workers/services[.]ts$";
const ADAPTERS =
  "^workers/(http|mcp)/|[.](routes|tools|server|resources|consumer|cron|relay|entrypoint)[.]ts$|^workers/gateway/call-fast-path[.]ts$";
const SERVICES = "[.]service[.]ts$";
const REPOSITORIES = "[.](repo|statements)[.]ts$";
const SCHEMA = "[.]schema[.]ts$|^d1/";
const OUTSIDE_THE_WORKER = "^(bin|bench|eval|test)/";
/** What only Workers-side adapters and the agent may use: the HTTP framework and the MCP SDKs. */
const HTTP_AND_MCP_LIBRARIES = "^node_modules/(hono|@modelcontextprotocol/[^/]+|agents)/";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "No module imports itself through others, type-only imports included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "entry-is-imported-by-nothing",
      comment: "workers/index.ts, app.ts and api-app.ts wire everything; only the entry itself and the tests may import them.",
      severity: "error",
      from: { pathNot: `${ENTRY}|^test/` },
      to: { path: ENTRY },
    },
    {
      name: "registries-are-for-the-entry",
      comment: "The server and queue-event lists are wiring: the entry (and bin/, bench/, test/) use them, nothing below.",
      severity: "error",
      from: { pathNot: `${ENTRY}|${OUTSIDE_THE_WORKER}` },
      to: { path: REGISTRIES },
    },
    {
      name: "composition-root-is-for-adapters",
      comment: "Only the entry and the adapters (the HTTP middleware, the MCP tool context) depend on workers/services.ts.",
      severity: "error",
      from: { pathNot: `${ENTRY}|${ADAPTERS}|${OUTSIDE_THE_WORKER}` },
      to: { path: COMPOSITION },
    },
    {
      name: "adapters-are-imported-only-by-adapters",
      comment:
        "Domain code (services, repositories, schema, Durable Objects, lib) never depends on an HTTP route, MCP tool or server, queue consumer or cron.",
      severity: "error",
      from: { pathNot: `${ENTRY}|${REGISTRIES}|${ADAPTERS}|${OUTSIDE_THE_WORKER}` },
      to: { path: ADAPTERS },
    },
    {
      name: "routes-do-not-call-tools",
      comment: "A REST route and an MCP tool both call the same service, never each other.",
      severity: "error",
      from: { path: "[.]routes[.]ts$" },
      to: { path: "[.]tools[.]ts$" },
    },
    {
      name: "tools-do-not-call-routes",
      comment: "A REST route and an MCP tool both call the same service, never each other.",
      severity: "error",
      from: { path: "[.]tools[.]ts$" },
      to: { path: "[.]routes[.]ts$" },
    },
    {
      name: "mcp-does-not-depend-on-http",
      comment: "The MCP layer (tool context, hosting) is independent of the REST layer; both depend on workers/services.ts.",
      severity: "error",
      from: { path: "^workers/mcp/" },
      to: { path: "^workers/http/" },
    },
    {
      name: "domain-imports-no-http-or-mcp-library",
      comment: "Services, repositories and schemas know no Hono, no MCP SDK and no Agents SDK: adapters translate.",
      severity: "error",
      from: { path: `${SERVICES}|${REPOSITORIES}|${SCHEMA}|^workers/lib/` },
      to: { path: HTTP_AND_MCP_LIBRARIES },
    },
    {
      name: "services-do-not-import-up",
      comment: "A domain service imports repositories, schemas, lib and other services; never the composition root or the entry.",
      severity: "error",
      from: { path: SERVICES },
      to: { path: `${COMPOSITION}|${REGISTRIES}|${ENTRY}` },
    },
    {
      name: "repositories-import-only-down",
      comment: "A repository knows drizzle, D1 and the schema; never a service, an adapter or a Durable Object.",
      severity: "error",
      from: { path: REPOSITORIES },
      to: { path: `${SERVICES}|${COMPOSITION}|${REGISTRIES}|${ENTRY}|^durable-objects/` },
    },
    {
      name: "schema-imports-only-schema",
      comment:
        "Schemas (zod field schemas, event schemas, the drizzle tables) import nothing of ours but other schemas and lib/ primitives (the bottom layer: pure rules such as the storable date range or the stored-JSON limits).",
      severity: "error",
      from: { path: SCHEMA },
      to: { path: "^(workers|durable-objects|d1)/", pathNot: `${SCHEMA}|^workers/lib/` },
    },
    {
      name: "only-the-entry-imports-durable-objects",
      comment:
        "Each Worker's entry re-exports its classes (workers/index.ts; the agent's workers/agent/worker.ts, ChatAgent); everything else reaches an object through its binding (Env['THINKING'] …), typed by wrangler types.",
      severity: "error",
      from: { path: "^workers/", pathNot: "^workers/(index|agent/worker)[.]ts$" },
      to: { path: "^durable-objects/" },
    },
    {
      name: "durable-objects-import-no-repositories-routes-or-tools",
      comment:
        "A Durable Object keeps its own storage; D1 and the HTTP/MCP surface belong to the services and adapters (the gateway's source object hands a changed tool list to the Worker's inventory entry point over its binding).",
      severity: "error",
      from: { path: "^durable-objects/" },
      to: { path: `${REPOSITORIES}|${SERVICES}|${COMPOSITION}|[.](routes|tools|entrypoint)[.]ts$` },
    },
    {
      name: "the-worker-imports-nothing-outside-it",
      comment: "bin/, bench/, eval/ and test/ may import workers/; the Worker never imports them.",
      severity: "error",
      from: { path: "^(workers|durable-objects|d1)/" },
      to: { path: OUTSIDE_THE_WORKER },
    },
    {
      name: "resolvable",
      comment: "Every import resolves: a typo or a moved file fails here, with the file named.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // The `typescript` package here is TypeScript 7 (native), which has no JavaScript API yet;
    // swc parses the TypeScript instead, type-only imports included.
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    // Modules the workerd runtime and the vitest pool provide.
    builtInModules: { add: ["cloudflare:workers", "cloudflare:test", "cloudflare:sockets", "cloudflare:email"] },
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["workerd", "worker", "import", "require", "node", "default", "types"],
      extensions: [".ts", ".d.ts", ".js", ".mjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

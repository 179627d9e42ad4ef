/**
 * The dependency direction of docs/architecture.md ("Layers"), checked by `npm run lint:deps`
 * (and .ci/run). The layers are .dependency-cruiser-layers.cjs, which places every source file of
 * workers/, durable-objects/ and d1/ in exactly one (bin/check-layers.ts checks that first, so no
 * file is outside these rules; decision 0059). Top to bottom:
 *
 *   entry, durable objects  each Worker's entry and RPC entry points; the Durable Object classes
 *   registries              the server, queue-event and sign-in route lists the entry wires up
 *   adapters                HTTP, MCP, queue and cron edges
 *   composition             workers/services.ts (builds the domain services; adapters reach them through it)
 *   domain                  services and the unsuffixed domain modules beside them
 *   mcp client              the one outbound MCP client
 *   repositories            drizzle on D1
 *   schema                  zod field schemas, the drizzle tables
 *   lib                     primitives
 *
 * Durable Objects host their area's logic and are reached from it only through the bindings typed
 * by the generated Env, never by importing the class. The folder-level cycle check is in
 * .dependency-cruiser-folders.cjs (it needs the root wiring files left out).
 *
 * Inside the gateway, its rooms depend one way too (GATEWAY_ROOMS below). Upstream connections and
 * the gateway meet at one port (gateway/authorization/upstream-authorization.ts, decision 0063).
 *
 * There are no exceptions: a new one must be one edge, say why, and name what removes it.
 */
const { LAYERS } = require("./.dependency-cruiser-layers.cjs");

const ENTRY = LAYERS.entry;
const DURABLE_OBJECTS = LAYERS["durable objects"];
const REGISTRIES = LAYERS.registries;
const ADAPTERS = LAYERS.adapters;
const COMPOSITION = LAYERS.composition;
const DOMAIN = LAYERS.domain;
const MCP_CLIENT = LAYERS["mcp client"];
const REPOSITORIES = LAYERS.repositories;
const SCHEMA = LAYERS.schema;
const LIB = LAYERS.lib;
/** The domain's services: what the composition root wires and the adapters call. */
const SERVICES = "[.]service[.]ts$";
/** The Workers' entries that export Durable Object classes (the main Worker's and the agent Worker's). */
const CLASS_EXPORTING_ENTRIES = "^workers/(index|agent-worker/worker)[.]ts$";
const OUTSIDE_THE_WORKER = "^(bin|bench|eval|test)/";
/** The HTTP framework and the MCP SDKs (server, client, the Agents SDK): for the adapters, and the client SDK for mcp-client/. */
const HTTP_AND_MCP_LIBRARIES = "^node_modules/(hono|@modelcontextprotocol/[^/]+|agents)/";
const MCP_CLIENT_LIBRARY = "^node_modules/@modelcontextprotocol/client/";
/** What an isolate remembers (workers/isolate-state.ts): only the composition root hands it on. */
const ISOLATE_STATE = "^workers/isolate-state[.]ts$";
/**
 * The gateway's rooms (workers/gateway/<room>/, docs/architecture.md "The gateway's rooms"), top
 * to bottom: a room imports only itself and the rooms below it. The two on top know nothing of each
 * other: catalog (the /mcp server, admin tools, hiding, health) and source-object (the logic the
 * GatewaySource Durable Object delegates to).
 */
const GATEWAY_ROOMS = [["catalog", "source-object"], ["registry"], ["discovery"], ["calls"], ["authorization"], ["sources"]];

/** One rule per room: what it may import of the gateway. */
function gatewayRoomRules() {
  return GATEWAY_ROOMS.flatMap((level, i) =>
    level.map((room) => {
      const below = GATEWAY_ROOMS.slice(i + 1).flat();
      const others = below.length > 0 ? below.map((r) => `${r}/`).join(", ") : "no other room";
      return {
        name: `gateway-${room}-imports-only-rooms-below`,
        comment: `The gateway's rooms depend one way: ${room}/ imports only itself and ${others}.`,
        severity: "error",
        from: { path: `^workers/gateway/${room}/` },
        to: { path: "^workers/gateway/", pathNot: `^workers/gateway/(${[room, ...below].join("|")})/` },
      };
    }),
  );
}
/** The gateway's port to upstream connections: the one gateway module workers/upstream-connections/ imports. */
const GATEWAY_PORT = "^workers/gateway/authorization/upstream-authorization[.]ts$";
const BUILD_OUTPUT = "^(workers|durable-objects|d1)/(.*/|)dist/";

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
      comment:
        "The entries (workers/index.ts, app.ts, api-app.ts, the RPC entry points, the agent Worker's worker.ts) wire everything; only " +
        "entries and the tests import them.",
      severity: "error",
      from: { pathNot: `${ENTRY}|^test/` },
      to: { path: ENTRY },
    },
    {
      name: "registries-are-for-the-entry",
      comment: "The server, queue-event and sign-in route lists are wiring: the entry (and bin/, bench/, test/) use them, nothing below.",
      severity: "error",
      from: { pathNot: `${ENTRY}|${OUTSIDE_THE_WORKER}` },
      to: { path: REGISTRIES },
    },
    {
      name: "composition-root-is-for-adapters",
      comment:
        "Only the entry and the adapters (the HTTP middleware, the MCP tool context) depend on workers/services.ts; within the root, services.ts takes isolate-state.ts.",
      severity: "error",
      from: { pathNot: `${ENTRY}|${ADAPTERS}|${COMPOSITION}|${OUTSIDE_THE_WORKER}` },
      to: { path: COMPOSITION },
    },
    {
      name: "isolate-state-is-for-the-composition-root",
      comment: "What an isolate remembers (workers/isolate-state.ts) reaches the services only through workers/services.ts.",
      severity: "error",
      from: { pathNot: `${COMPOSITION}|^test/` },
      to: { path: ISOLATE_STATE },
    },
    {
      name: "adapters-are-imported-only-by-adapters",
      comment:
        "Nothing below the adapters (the composition root, the domain, the MCP client, repositories, schema, lib, the Durable Objects) " +
        "depends on an HTTP route, MCP tool or server, queue consumer or cron.",
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
      name: "below-the-adapters-no-http-or-mcp-library",
      comment:
        "The composition root, the domain, repositories, schemas, lib and the Durable Objects know no Hono, no MCP SDK and no Agents " +
        "SDK: adapters translate, and the MCP client (workers/mcp-client/) is the one user of the SDK's client.",
      severity: "error",
      from: { path: `${COMPOSITION}|${DOMAIN}|${REPOSITORIES}|${SCHEMA}|${LIB}|${DURABLE_OBJECTS}` },
      to: { path: HTTP_AND_MCP_LIBRARIES },
    },
    {
      name: "mcp-client-uses-only-the-client-sdk",
      comment: "The outbound MCP client speaks through the SDK's client only: no Hono, no server SDK, no Agents SDK.",
      severity: "error",
      from: { path: MCP_CLIENT },
      to: { path: HTTP_AND_MCP_LIBRARIES, pathNot: MCP_CLIENT_LIBRARY },
    },
    {
      name: "mcp-client-imports-only-lib",
      comment: "The outbound MCP client knows no area: the gateway, the chat agent and the CLI each hand it what it needs.",
      severity: "error",
      from: { path: MCP_CLIENT },
      to: { path: "^(workers|durable-objects|d1)/", pathNot: `${MCP_CLIENT}|${LIB}` },
    },
    {
      name: "domain-does-not-import-up",
      comment:
        "Domain code imports other domain code, the MCP client, repositories, schemas and lib; never the composition root, a registry " +
        "or an entry.",
      severity: "error",
      from: { path: DOMAIN },
      to: { path: `${COMPOSITION}|${REGISTRIES}|${ENTRY}` },
    },
    {
      name: "repositories-import-only-down",
      comment:
        "A repository knows drizzle, D1, the schema and the domain's types and pure rules (an alias plan, a pinned definition's hash, a " +
        "principal's shape); never a service, the MCP client, the wiring or a Durable Object.",
      severity: "error",
      from: { path: REPOSITORIES },
      to: { path: `${SERVICES}|${MCP_CLIENT}|${COMPOSITION}|${REGISTRIES}|${ENTRY}|^durable-objects/` },
    },
    {
      name: "schema-imports-only-schema",
      comment:
        "Schemas (zod field schemas, event schemas, the drizzle tables) import nothing of ours but other schemas and lib/ primitives " +
        "(the bottom layer: pure rules such as the storable date range or the stored-JSON limits).",
      severity: "error",
      from: { path: SCHEMA },
      to: { path: "^(workers|durable-objects|d1)/", pathNot: `${SCHEMA}|${LIB}` },
    },
    {
      name: "lib-is-the-bottom",
      comment: "lib/ primitives import only each other, and the drizzle tables (lib/db.ts opens D1 with them).",
      severity: "error",
      from: { path: LIB },
      to: { path: "^(workers|durable-objects)/", pathNot: LIB },
    },
    {
      name: "only-the-entry-imports-durable-objects",
      comment:
        "Each Worker's entry re-exports its classes (workers/index.ts; the agent's workers/agent-worker/worker.ts, ChatAgent); " +
        "everything else reaches an object through its binding (Env['THINKING'] …), typed by wrangler types.",
      severity: "error",
      from: { path: "^workers/", pathNot: CLASS_EXPORTING_ENTRIES },
      to: { path: "^durable-objects/" },
    },
    {
      name: "durable-objects-import-no-repositories-or-services",
      comment:
        "A Durable Object wires its own storage to its area's logic; D1, the services and the HTTP/MCP surface are the Worker's (the " +
        "gateway's source object hands a changed tool list to the Worker's inventory entry point over its binding).",
      severity: "error",
      from: { path: "^durable-objects/" },
      to: { path: `${REPOSITORIES}|${SERVICES}|${COMPOSITION}|${REGISTRIES}` },
    },
    {
      name: "isolate-state-is-for-the-composition-root",
      comment: "What an isolate remembers (workers/isolate-state.ts) reaches the services only through workers/services.ts.",
      severity: "error",
      from: { pathNot: `${COMPOSITION}|^test/` },
      to: { path: ISOLATE_STATE },
    },
    {
      name: "gateway-files-live-in-rooms",
      comment: "Every file of the gateway is in one of its rooms (GATEWAY_ROOMS); none lies loose in workers/gateway/.",
      severity: "error",
      from: { path: "^workers/gateway/[^/]+$" },
      to: {},
    },
    {
      name: "nothing-imports-a-loose-gateway-file",
      comment: "Every file of the gateway is in one of its rooms (GATEWAY_ROOMS); none lies loose in workers/gateway/.",
      severity: "error",
      from: {},
      to: { path: "^workers/gateway/[^/]+$" },
    },
    ...gatewayRoomRules(),
    {
      name: "upstream-connections-reach-the-gateway-through-its-port",
      comment:
        "Upstream connections see of the gateway only its port (sources, the secrets box, the authorizer they implement); " +
        "the composition root wires the two (decision 0063).",
      severity: "error",
      from: { path: "^workers/upstream-connections/" },
      to: { path: "^workers/gateway/", pathNot: GATEWAY_PORT },
    },
    {
      name: "gateway-knows-no-upstream-connections",
      comment: "The gateway calls upstream connections only through the UpstreamAuthorizer port it defines, never their modules.",
      severity: "error",
      from: { path: "^workers/gateway/" },
      to: { path: "^workers/upstream-connections/" },
    },
    {
      name: "durable-object-logic-imports-no-repositories-or-services",
      comment: "What GatewaySource delegates to (workers/gateway/source-object/) keeps to the object's own storage, as the class does.",
      severity: "error",
      from: { path: "^workers/gateway/source-object/" },
      to: { path: `${REPOSITORIES}|${SERVICES}|${COMPOSITION}|${REGISTRIES}` },
    },
    {
      name: "agent-core-is-runtime-neutral",
      comment:
        "workers/agent/ is run by the agent Worker and by `npx mcp-edge chat` in Node: no cloudflare:* module or workerd package, no " +
        "Worker entry, wiring, adapter or Durable Object (the agent Worker's side is workers/agent-worker/, the main Worker's /api/chat " +
        "workers/chat/).",
      severity: "error",
      from: { path: "^workers/agent/" },
      to: {
        path: [
          "^cloudflare:",
          "^node_modules/(workerd|@cloudflare/[^/]+|hono|agents|@modelcontextprotocol/server)/",
          "^workers/[^/]+[.]ts$",
          "^workers/(agent-worker|chat|http|mcp)/",
          "^durable-objects/",
        ].join("|"),
      },
    },
    {
      name: "oauth-library-only-in-auth",
      comment: "Only workers/auth/ (our authorization server) uses @cloudflare/workers-oauth-provider.",
      severity: "error",
      from: { path: "^(workers|durable-objects|d1)/", pathNot: "^workers/auth/" },
      to: { path: "^node_modules/@cloudflare/workers-oauth-provider/" },
    },
    {
      name: "gateway-files-live-in-rooms",
      comment: "Every file of the gateway is in one of its rooms (GATEWAY_ROOMS); none lies loose in workers/gateway/.",
      severity: "error",
      from: { path: "^workers/gateway/[^/]+$" },
      to: {},
    },
    {
      name: "nothing-imports-a-loose-gateway-file",
      comment: "Every file of the gateway is in one of its rooms (GATEWAY_ROOMS); none lies loose in workers/gateway/.",
      severity: "error",
      from: {},
      to: { path: "^workers/gateway/[^/]+$" },
    },
    ...gatewayRoomRules(),
    {
      name: "durable-object-logic-imports-no-repositories-routes-or-tools",
      comment: "What GatewaySource delegates to (workers/gateway/source-object/) keeps to the object's own storage, as the class does.",
      severity: "error",
      from: { path: "^workers/gateway/source-object/" },
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
    // Build output is not source: wrangler once wrote the agent Worker's bundle inside its folder
    // (workers/agent/dist/, git-ignored), where it may still sit in an older checkout.
    exclude: { path: BUILD_OUTPUT },
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

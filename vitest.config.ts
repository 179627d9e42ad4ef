import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { routeMetadataHost } from "./test/upstreams/metadata-documents";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } from "./test/upstreams/oidc-test-client";
import { reserveUpstreamPorts, upstreamUrls } from "./test/upstreams/ports";
import { UPSTREAM_OAUTH_KV_ID, upstreamWorkers } from "./test/upstreams/upstream-worker";
import { agentAuxiliaryWorker, mainAuxiliaryWorker } from "./test/upstreams/worker-bundles";

// Eight projects (docs/testing.md says how to run each), one folder each: a file's folder under test/ says
// which project runs it, so each project includes one glob. Every workerd project runs both Workers: the
// one under test, and the other one as an auxiliary Worker built by test/upstreams/worker-bundles.ts,
// bound to each other as deployed. The main Worker's projects (workers, upstreams, auth, limits) also
// run the main Worker a second time as the upstream Worker on https://upstream.mcp-edge.test, another
// deployment that gateway tests register as a source (test/upstreams/upstream-worker.ts): the Worker
// under test's outbound requests pass a router that sends that host there.
// - unit: test/unit/, pure modules in Node — no Worker, no workerd, no upstream process. `npm run test:unit`.
//   A file belongs here when everything it imports runs outside workerd.
// - workers: test/workerd/ runs inside workerd against real (local) D1, Queues, KV and Durable
//   Objects, configured from wrangler.toml (its per-user rate limits included: tests that make many
//   calls spread them over several users, as test/workerd/fuzz does); test/setup.ts applies migrations.
// - upstreams: test/with-upstreams/, the same Worker, for the files that talk to real upstream servers
//   (the gateway's tests and a few others, in sub-folders by area); only this project's global set-up
//   starts them (test/upstreams/global-setup.ts: the fixture server, server-everything, `mcp-edge bridge`s
//   and the model providers' wire formats), so a run of any other project starts no Node process.
// - limits: test/limits/, the same Worker with tiny per-user rate limits (below), so its tests go
//   over a limit in a few calls and see it reset within one 10 s window. Only these tests run with
//   them: everywhere else the limits are the ones that ship.
// - auth: test/auth/ (sign-in, and upstream connections in test/auth/upstream-connections/), the same
//   Worker, plus one network route: the reserved host of the test
//   Client ID Metadata Documents goes to a local document server; and a real OpenID Provider
//   (oidc-provider on loopback) configured as the Worker's external sign-in. It is its own project so every
//   other test keeps workerd's own outbound network (a route handler turns a refused connection
//   into an HTTP 500, which would change what the gateway and agent tests see).
// - agent-worker: test/agent-worker/, the chat agent's Worker under test (its ChatAgent objects
//   inspected in place), with the main Worker beside it; a test-only MAIN_HTTP binding reaches the
//   main Worker's public routes and DB is the main Worker's database, to make users.
// - node: test/node/ runs in Node, for what a Worker cannot do itself: the stdio bridge (child
//   processes), the chat CLI, the rate-limit settings read from wrangler.toml.
// - browser: test/browser/, the console and sign-in pages in a real headless Chromium
//   against `wrangler dev`; its global set-up chooses the browser (test/browser/helpers/chromium.ts).

/**
 * The main Worker's D1 database (wrangler.toml), which the agent-worker tests share to make users.
 * Its binding has no database_id (wrangler provisions it on deploy), so locally it is kept under its binding's name.
 */
const MAIN_DATABASE_ID = "DB";
/**
 * Time limits for the workerd projects. They bound a hung test; they are not speed checks (speed is
 * measured by `npm run bench`). vitest's default 5 s was too tight on CI's shared two-core machine:
 * with every project's pool busy, a file's first request also pays that isolate's first-use builds
 * (decision 0034), and a five-request sign-in test once took longer than 5 s.
 */
const WORKERD_TIMEOUTS = { testTimeout: 30_000, hookTimeout: 60_000 } as const;

export default defineConfig(async () => {
  const migrations = await readD1Migrations("d1/migrations");
  // The upstream servers' ports, reserved here so the Worker's TEST_UPSTREAMS binding can name them;
  // the upstreams project's global set-up starts servers on them (other projects never reach them).
  const upstreamPorts = await reserveUpstreamPorts();
  const bindings = {
    TEST_MIGRATIONS: migrations,
    // Gateway: tests register the upstream Worker's servers (test/upstreams/upstream-worker.ts) and
    // local servers as sources; the Worker's own origin (http://localhost) is never one. The secrets
    // key is a test-only constant, never a deployed one.
    ALLOW_PRIVATE_UPSTREAMS: "1",
    SELF_ORIGIN: "http://localhost",
    SOURCE_SECRETS_KEY: "dGVzdC1vbmx5LXNvdXJjZS1zZWNyZXRzLWtleS0zMmI=",
    TEST_UPSTREAMS: JSON.stringify(upstreamUrls(upstreamPorts)),
    // Chat agent: the main Worker's own gateway, served over its AgentMcp binding for each caller's principal.
    MCP_URL: "http://localhost/mcp",
    // test/workerd/fuzz: runs per property and seed; unset = the bounded, fixed-seed run of `npm test`.
    FUZZ_RUNS: process.env["FUZZ_RUNS"] ?? "",
    FUZZ_SEED: process.env["FUZZ_SEED"] ?? "",
  };
  // The chat agent's Worker: MCP_URL is the main Worker's own gateway, served over its AgentMcp
  // binding for each caller's principal.
  const agentVars = { SELF_ORIGIN: "http://localhost", MCP_URL: "http://localhost/mcp" };
  const agentBeside = async (project: string) => [await agentAuxiliaryWorker(project, agentVars)];
  // The upstream Worker's OAuth KV, bound in the Worker under test for the tests that read what its
  // authorization server issued.
  const upstreamOAuthKv = { OAUTH_KV: "00000000000000000000000000000000", UPSTREAM_OAUTH_KV: UPSTREAM_OAUTH_KV_ID };
  // One plugin instance per project: each holds its own workerd pool.
  // LAGGING_REPLICA: a second local D1, the replica of test/helpers/lagging-replica.ts (Miniflare has no read replicas).
  // The upstream Worker (a second copy of the main Worker) starts with every test file of a project
  // that has it, so only the projects whose tests reach an upstream get it: `upstreams` here, `auth`
  // and `limits` below.
  const worker = async (project: string, { withUpstream }: { withUpstream: boolean }) => {
    const upstream = withUpstream ? await upstreamWorkers(bindings) : undefined;
    return cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings,
        kvNamespaces: upstreamOAuthKv,
        d1Databases: { LAGGING_REPLICA: "lagging-replica" },
        ...(upstream ? { outboundService: upstream.outboundService } : {}),
        workers: [...(await agentBeside(project)), ...(upstream?.workers ?? [])],
      },
    });
  };
  // The limits project's budgets: the bindings' own settings and the vars that describe them, in step.
  const tinyLimits = { tools: { limit: 4, period: 10 }, api: { limit: 5, period: 10 } } as const;
  const tinyLimitVars = {
    TOOL_CALL_RATE_LIMIT: `${tinyLimits.tools.limit}/${tinyLimits.tools.period}s`,
    API_RATE_LIMIT: `${tinyLimits.api.limit}/${tinyLimits.api.period}s`,
  };
  const tinyRateLimits = {
    TOOL_CALL_LIMITER: { namespace_id: "1016", simple: tinyLimits.tools },
    API_REQUEST_LIMITER: { namespace_id: "1017", simple: tinyLimits.api },
  };
  // The upstream Worker of the limits project counts its own callers with the same tiny budgets.
  const limitsUpstream = await upstreamWorkers({ ...bindings, ...tinyLimitVars }, { ratelimits: tinyRateLimits });
  const authUpstream = await upstreamWorkers(bindings, { outbound: routeMetadataHost(upstreamPorts.metadataDocuments) });
  return {
    test: {
      projects: [
        {
          test: {
            name: "unit",
            include: ["test/unit/**/*.test.ts"],
            environment: "node",
          },
        },
        {
          plugins: [await worker("workers", { withUpstream: false })],
          test: {
            name: "workers",
            ...WORKERD_TIMEOUTS,
            include: ["test/workerd/**/*.test.ts"],
            setupFiles: ["./test/setup.ts"],
          },
        },
        {
          plugins: [await worker("upstreams", { withUpstream: true })],
          test: {
            name: "upstreams",
            ...WORKERD_TIMEOUTS,
            include: ["test/with-upstreams/**/*.test.ts"],
            setupFiles: ["./test/setup.ts"],
            globalSetup: ["./test/upstreams/global-setup.ts"],
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                // Sign-in with OpenID Connect against the real provider test/upstreams/oidc-provider.ts runs.
                bindings: {
                  ...bindings,
                  OIDC_ISSUER: `http://127.0.0.1:${upstreamPorts.oidcProvider}`,
                  OIDC_CLIENT_ID,
                  OIDC_CLIENT_SECRET,
                  OIDC_NAME: "Test ID",
                  // The gateway's own Client ID Metadata Document, as upstream authorization servers
                  // fetch it: on the reserved test host (the tests publish what /oauth/gateway-client.json serves).
                  GATEWAY_CLIENT_METADATA_URL: "https://client-metadata.test/mcp-edge/gateway-client.json",
                },
                kvNamespaces: upstreamOAuthKv,
                // Client ID Metadata Documents: the reserved test host goes to the local document
                // server (test/upstreams/metadata-documents.ts), the upstream Worker's host to it, and
                // every other request goes out as is — from the Worker under test and from the
                // upstream Worker (whose authorization server fetches the gateway's document too).
                outboundService: authUpstream.outboundService,
                workers: [...(await agentBeside("auth")), ...authUpstream.workers],
              },
            }),
          ],
          test: {
            name: "auth",
            ...WORKERD_TIMEOUTS,
            include: ["test/auth/**/*.test.ts"],
            setupFiles: ["./test/setup.ts"],
            globalSetup: ["./test/upstreams/auth-setup.ts"],
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: { ...bindings, ...tinyLimitVars },
                ratelimits: tinyRateLimits,
                kvNamespaces: upstreamOAuthKv,
                outboundService: limitsUpstream.outboundService,
                workers: [...(await agentBeside("limits")), ...limitsUpstream.workers],
              },
            }),
          ],
          test: {
            name: "limits",
            ...WORKERD_TIMEOUTS,
            include: ["test/limits/**/*.test.ts"],
            setupFiles: ["./test/setup.ts"],
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./workers/agent-worker/wrangler.toml" },
              miniflare: {
                bindings: { ...agentVars, TEST_MIGRATIONS: migrations, TEST_UPSTREAMS: bindings.TEST_UPSTREAMS },
                d1Databases: { DB: MAIN_DATABASE_ID },
                serviceBindings: { MAIN_HTTP: "mcp-edge" },
                workers: [await mainAuxiliaryWorker("agent-worker", bindings)],
              },
            }),
          ],
          test: {
            name: "agent-worker",
            ...WORKERD_TIMEOUTS,
            include: ["test/agent-worker/**/*.test.ts"],
            setupFiles: ["./test/setup.ts"],
          },
        },
        {
          test: {
            name: "node",
            include: ["test/node/**/*.test.ts"],
            environment: "node",
            testTimeout: 60_000,
            hookTimeout: 180_000,
          },
        },
        {
          test: {
            name: "browser",
            include: ["test/browser/**/*.test.ts"],
            environment: "node",
            globalSetup: ["./test/browser/browser-setup.ts"],
            testTimeout: 60_000,
            hookTimeout: 180_000,
          },
        },
      ],
    },
  };
});

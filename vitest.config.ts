import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { routeMetadataHost } from "./test/upstreams/metadata-documents";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } from "./test/upstreams/oidc-test-client";
import { reserveUpstreamPorts, upstreamUrls } from "./test/upstreams/ports";

// Four projects:
// - workers: everything under test/ except test/node/, test/auth/ and test/limits/ runs inside
//   workerd against real (local) D1, Queues and Durable Objects, configured from wrangler.toml
//   (its per-user rate limits included: tests that make many calls spread them over several users,
//   as test/fuzz does); test/setup.ts applies migrations.
// - limits: test/limits/, the same Worker with tiny per-user rate limits (below), so its tests go
//   over a limit in a few calls and see it reset within one 10 s window. Only these tests run with
//   them: everywhere else the limits are the ones that ship.
// - auth: test/auth/ and test/upstream-oauth/, the same Worker, plus one network route: the reserved host of the test
//   Client ID Metadata Documents goes to a local document server; and a real OpenID Provider
//   (oidc-provider on loopback) configured as the Worker's external sign-in. It is its own project so every
//   other test keeps workerd's own outbound network (a route handler turns a refused connection
//   into an HTTP 500, which would change what the gateway and agent tests see).
// - node: test/node/ runs in Node, for what a Worker cannot do itself: the stdio bridge (child
//   processes) and the console driven in a real Chromium against `wrangler dev`.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("d1/migrations");
  // Real upstream servers for the gateway tests (test/upstreams/global-setup.ts starts them).
  const upstreamPorts = await reserveUpstreamPorts();
  const bindings = {
    TEST_MIGRATIONS: migrations,
    // Gateway: tests register the Worker's own servers (http://localhost) as sources, served
    // through SELF; the secrets key is a test-only constant, never a deployed one.
    ALLOW_PRIVATE_UPSTREAMS: "1",
    SELF_ORIGIN: "http://localhost",
    SOURCE_SECRETS_KEY: "dGVzdC1vbmx5LXNvdXJjZS1zZWNyZXRzLWtleS0zMmI=",
    TEST_UPSTREAMS: JSON.stringify(upstreamUrls(upstreamPorts)),
    // Chat agent: the Worker's own gateway, reached through SELF with each user's token.
    MCP_URL: "http://localhost/mcp",
    // test/fuzz: runs per property and seed; unset = the bounded, fixed-seed run of `npm test`.
    FUZZ_RUNS: process.env["FUZZ_RUNS"] ?? "",
    FUZZ_SEED: process.env["FUZZ_SEED"] ?? "",
  };
  // The limits project's budgets: the bindings' own settings and the vars that describe them, in step.
  const tinyLimits = { tools: { limit: 4, period: 10 }, api: { limit: 5, period: 10 } } as const;
  return {
    test: {
      projects: [
        {
          plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" }, miniflare: { bindings } })],
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: ["test/node/**", "test/auth/**", "test/upstream-oauth/**", "test/limits/**"],
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
                // Client ID Metadata Documents: the reserved test host goes to the local document
                // server (test/upstreams/metadata-documents.ts); every other request goes out as is.
                outboundService: routeMetadataHost(upstreamPorts.metadataDocuments),
              },
            }),
          ],
          test: {
            name: "auth",
            include: ["test/auth/**/*.test.ts", "test/upstream-oauth/**/*.test.ts"],
            setupFiles: ["./test/setup.ts"],
            globalSetup: ["./test/upstreams/auth-setup.ts"],
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  ...bindings,
                  TOOL_CALL_RATE_LIMIT: `${tinyLimits.tools.limit}/${tinyLimits.tools.period}s`,
                  API_RATE_LIMIT: `${tinyLimits.api.limit}/${tinyLimits.api.period}s`,
                },
                ratelimits: {
                  TOOL_CALL_LIMITER: { namespace_id: "1016", simple: tinyLimits.tools },
                  API_REQUEST_LIMITER: { namespace_id: "1017", simple: tinyLimits.api },
                },
              },
            }),
          ],
          test: {
            name: "limits",
            include: ["test/limits/**/*.test.ts"],
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
      ],
    },
  };
});

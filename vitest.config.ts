import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { reserveUpstreamPorts, upstreamUrls } from "./test/upstreams/ports";

// Two projects:
// - workers: everything under test/ except test/node/ runs inside workerd against real (local)
//   D1, Queues and Durable Objects, configured from wrangler.toml; test/setup.ts applies migrations.
// - node: test/node/ runs in Node, for what a Worker cannot do itself: the stdio bridge (child
//   processes) and the console driven in a real Chromium against `wrangler dev`.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("d1/migrations");
  // Real upstream servers for the gateway tests (test/upstreams/global-setup.ts starts them).
  const upstreamPorts = await reserveUpstreamPorts();
  return {
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
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
                },
              },
            }),
          ],
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: ["test/node/**"],
            setupFiles: ["./test/setup.ts"],
            globalSetup: ["./test/upstreams/global-setup.ts"],
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

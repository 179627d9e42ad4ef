import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Every test runs inside workerd against real (local) D1, Queues and Durable Objects,
// configured from wrangler.toml; migrations are applied by test/setup.ts.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("d1/migrations");
  return {
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
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/setup.ts"],
    },
  };
});

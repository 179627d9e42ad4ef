import { applyD1Migrations, env } from "cloudflare:test";

// Idempotent: applyD1Migrations records what it applied, so re-running per file is cheap.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

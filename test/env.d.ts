import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** workers and upstreams projects: the lagging replica's database (test/helpers/lagging-replica.ts). */
      LAGGING_REPLICA: D1Database;
      /** JSON of the test upstreams' URLs (test/upstreams/ports.ts). */
      TEST_UPSTREAMS: string;
      /** test/workerd/fuzz: runs per property ("" = the bounded run of `npm test`) and seed ("" = the fixed one). */
      FUZZ_RUNS: string;
      FUZZ_SEED: string;
      /** The upstream Worker's OAUTH_KV (test/upstreams/upstream-worker.ts): what its authorization server issued. */
      UPSTREAM_OAUTH_KV: KVNamespace;
      /** agent-worker project only: the main Worker beside the agent Worker under test, its public routes. */
      MAIN_HTTP: Fetcher;
    }
  }
}

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("../workers/index");
    }
  }
}

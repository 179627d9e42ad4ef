import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** JSON of the test upstreams' URLs (test/upstreams/ports.ts). */
      TEST_UPSTREAMS: string;
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

/**
 * The console's static assets may not be framed by another site (issue 21, finding 7): `public/_headers`
 * sets `Content-Security-Policy: frame-ancestors 'none'` and `X-Frame-Options: DENY` on each of them.
 * Workers static assets apply that file; the workerd test projects never serve assets, so this runs
 * the asset router wrangler.toml describes in Miniflare (what `wrangler dev` runs), with a stand-in
 * Worker behind it.
 */
import { join } from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { ROOT } from "../../bin/lib/wrangler";

let miniflare: Miniflare | undefined;

beforeAll(async () => {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, "wrangler.toml"));
  miniflare = new Miniflare(
    convertV4MiniflareOptions({
      name: "mcp-edge",
      modules: true,
      script: `export default { fetch: () => new Response("the Worker", { status: 418 }) };`,
      ...(workerOptions.compatibilityDate ? { compatibilityDate: workerOptions.compatibilityDate } : {}),
      ...(workerOptions.assets ? { assets: workerOptions.assets } : {}),
    }),
  );
  await miniflare.ready;
});

afterAll(async () => {
  await miniflare?.dispose();
});

describe("the console's static assets", () => {
  it.each(["/", "/index.html", "/console.css", "/js/app.js"])("%s forbids framing", async (path) => {
    const res = await miniflare!.dispatchFetch(`http://localhost${path}`);
    await res.arrayBuffer();
    expect(res.status, "served as an asset").toBe(200);
    expect(res.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  it("the Worker's own routes are not assets (they set their own headers)", async () => {
    const res = await miniflare!.dispatchFetch("http://localhost/authorize");
    expect(await res.text()).toBe("the Worker");
  });

  it("_headers itself is not served", async () => {
    const res = await miniflare!.dispatchFetch("http://localhost/_headers");
    expect(await res.text()).not.toContain("frame-ancestors");
  });
});

/**
 * The console's static assets may not be framed by another site (issue 21, finding 7): `public/_headers`
 * sets `Content-Security-Policy: frame-ancestors 'none'` and `X-Frame-Options: DENY` on each of them.
 * Workers static assets apply that file; the workerd test projects never serve assets, so this runs
 * the asset router wrangler.toml describes in Miniflare (what `wrangler dev` runs), with a stand-in
 * Worker behind it.
 */
import { join } from "node:path";
import { convertV4MiniflareOptions, Miniflare, type V4WorkerOptionsShape } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { ROOT } from "../../bin/lib/wrangler";

let miniflare: Miniflare | undefined;

type AssetsOptions = NonNullable<V4WorkerOptionsShape["assets"]>;

/** wrangler's typings of its derived options do not reach Miniflare's: check the one field used. */
function isAssetsOptions(value: unknown): value is AssetsOptions {
  return typeof value === "object" && value !== null && "directory" in value && typeof value.directory === "string";
}

beforeAll(async () => {
  // The asset options `wrangler dev` derives from wrangler.toml's [assets] (directory, the paths that
  // reach the Worker first, the router's configuration).
  const assets: unknown = unstable_getMiniflareWorkerOptions(join(ROOT, "wrangler.toml")).workerOptions.assets;
  if (!isAssetsOptions(assets)) throw new Error("wrangler.toml has no [assets] directory");
  miniflare = new Miniflare(
    convertV4MiniflareOptions({
      name: "mcp-edge",
      modules: true,
      script: `export default { fetch: () => new Response("the Worker", { status: 418 }) };`,
      compatibilityDate: "2026-11-01",
      assets,
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

  it("/app-frame, the frame of an MCP App, may be framed by the console's own origin only", async () => {
    const res = await miniflare!.dispatchFetch("http://localhost/app-frame");
    expect(res.status, "served as an asset").toBe(200);
    expect(await res.text()).toContain("mcp-edge/app-frame-ready");
    expect(res.headers.get("content-security-policy")).toBe("frame-ancestors 'self'");
    expect(res.headers.get("x-frame-options")).toBeNull();
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

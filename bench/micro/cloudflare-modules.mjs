/**
 * Lets the Node micro-benchmark import the product's modules: some import `cloudflare:workers`
 * (the OAuth provider library, our entry points), which only workerd serves. Resolved here to
 * node-cloudflare-workers.mjs, with the base classes and an absent tracer — nothing the measured
 * path (building a server, serving tools/list through the pipeline) calls.
 * Used as `node --import tsx --import ./bench/micro/cloudflare-modules.mjs …`.
 */
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
      const stub = ${JSON.stringify(new URL("./node-cloudflare-workers.mjs", import.meta.url).href)};
      export async function resolve(specifier, context, next) {
        return specifier === "cloudflare:workers" ? { url: stub, shortCircuit: true } : next(specifier, context);
      }`),
);
